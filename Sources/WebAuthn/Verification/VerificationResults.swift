/// Everything a server stores after a verified registration (§7.1 step 28's credential record, plus
/// what the attestation said).
public struct RegistrationResult: Sendable, Equatable {
    public let credentialId: [UInt8]
    /// The credential public key, COSE-encoded exactly as the authenticator sent it.
    public let publicKey: [UInt8]
    public let publicKeyAlgorithm: COSEAlgorithm
    public let signCount: UInt32
    public let aaguid: [UInt8]
    public let userPresent: Bool
    public let userVerified: Bool
    public let backupEligible: Bool
    public let backupState: Bool
    public let transports: [String]
    public let authenticatorAttachment: String?
    public let attestationFormat: String
    public let attestationType: AttestationType
    /// True only when the attestation chain was validated to a configured trust anchor.
    public let trustPathVerified: Bool
    /// The attestation certificates (DER), attestation certificate first; empty for none/self.
    public let attestationTrustPath: [[UInt8]]
    /// The credProps client extension output `rk`, when the client reported it.
    public let residentKey: Bool?
    /// The prf client extension output `enabled` (L3 §10.1.4): whether the passkey can evaluate a PRF
    /// (unlock data encrypted under a key only it can give), when the client reported it.
    public var prfEnabled: Bool? = nil

    /// The AAGUID in its usual textual form (8-4-4-4-12 lowercase hex).
    public var aaguidString: String { AAGUIDFormat.string(aaguid) }
}

/// What a verified authentication changes in the stored credential record (§7.2 step 25).
public struct AuthenticationResult: Sendable, Equatable {
    public let credentialId: [UInt8]
    /// The new sign count to store.
    public let signCount: UInt32
    public let userVerified: Bool
    public let backupEligible: Bool
    public let backupState: Bool
    /// The sign count did not grow although one side was non-zero, and the policy is to report it.
    public let possibleClone: Bool
    public let userHandle: [UInt8]?
    public let authenticatorAttachment: String?
    /// A synced passkey (BE=1) that had counted reported 0: it moved to a provider that does not count,
    /// and its counter is reset to 0 (`signCount`) instead of refusing the login.
    public var counterReset = false
}

/// An AAGUID in its usual textual form (8-4-4-4-12 lowercase hex); other lengths as plain hex.
public enum AAGUIDFormat {
    public static func string(_ bytes: [UInt8]) -> String {
        // Written byte by byte into one buffer (a string per byte, then joins, was 33 allocations a registration
        // in a debug build).
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2 + 4)
        var index = 0
        while index < bytes.count {
            if bytes.count == 16, index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(digits[Int(bytes[index] >> 4)])
            text.append(digits[Int(bytes[index] & 0x0F)])
            index += 1
        }
        return String(decoding: text, as: UTF8.self)
    }
}
