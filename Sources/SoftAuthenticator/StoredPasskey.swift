import Foundation

/// One credential the software authenticator keeps: everything needed to sign for it later, and what a
/// passwords app shows about it.
public struct StoredPasskey: Codable, Sendable, Equatable {
    public var rpId: String
    /// base64url.
    public var userHandle: String
    public var userName: String
    public var userDisplayName: String
    /// base64url.
    public var credentialId: String
    /// COSE algorithm: -7 (ES256) or -8 (EdDSA, Ed25519).
    public var algorithm: Int
    /// The private key's raw representation (P-256 scalar or Ed25519 seed), base64url.
    public var privateKey: String
    public var signCount: UInt32
    /// Synced-passkey style (BE = BS = 1, counter stays 0) or device-bound (BE = BS = 0, counter grows).
    public var backedUp: Bool
    /// Whether it may be offered without allowCredentials (a discoverable credential).
    public var discoverable: Bool
    public var createdAt: Date
    public var lastUsedAt: Date?
    /// The prf extension's secret (32 bytes, base64url), as CTAP2's hmac-secret keeps one per credential:
    /// made when the relying party asked for prf at creation; nil for a passkey made without (or stored
    /// by an older Latchkey), which then evaluates no PRF.
    public var prfSecret: String? = nil
}

/// A self-made attestation authority: a root CA and the one attestation certificate it issued, generated
/// on first use of `packed` x5c attestation and kept with the credentials so that every attestation from
/// this authenticator chains to the same root.
public struct AttestationAuthority: Codable, Sendable, Equatable {
    /// DER, base64url.
    public var rootCertificate: String
    /// DER, base64url.
    public var attestationCertificate: String
    /// The attestation key's P-256 raw representation, base64url. (The root's key is discarded once it
    /// has signed the attestation certificate: nothing else is ever issued.)
    public var attestationPrivateKey: String
}

/// Everything a credential store persists.
public struct AuthenticatorState: Codable, Sendable, Equatable {
    public var passkeys: [StoredPasskey]
    public var attestationAuthority: AttestationAuthority?

    public init(passkeys: [StoredPasskey] = [], attestationAuthority: AttestationAuthority? = nil) {
        self.passkeys = passkeys
        self.attestationAuthority = attestationAuthority
    }
}
