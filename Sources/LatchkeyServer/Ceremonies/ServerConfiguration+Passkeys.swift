import Foundation
import LatchkeyAPI
import WebAuthn

extension ServerConfiguration {
    /// The ceremonies' settings: attestation and the metadata BLOB, hints, the PRF salt.
    func validatePasskeys() throws(Invalid) {
        if requireAttestation, attestation != .direct {
            throw Invalid(description: "--require-attestation needs --attestation direct, or no authenticator is ever asked to prove its make")
        }
        if mdsRoot != nil, mdsBlob == nil {
            throw Invalid(description: "--mds-root names the root of a metadata BLOB; give the BLOB too (--mds-blob FILE)")
        }
        for (setting, hints) in [("--registration-hints", registrationHints), ("--login-hints", loginHints)] where Set(hints).count != hints.count {
            throw Invalid(description: "\(setting) names a hint twice: \(hints.map(\.rawValue).joined(separator: ","))")
        }
        if let prfSalt {
            guard let bytes = Base64URL.decode(prfSalt), InputRules.prfInputBytes.contains(bytes.count) else {
                throw Invalid(description: "--prf-salt must be 1 to 64 bytes as base64url (32 random bytes: openssl rand 32 | basenc --base64url), not \"\(prfSalt)\"")
            }
        }
    }
}
