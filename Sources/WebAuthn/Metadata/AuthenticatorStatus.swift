/// An authenticator model's status as a FIDO metadata status report states it (MDS3 §3.1.4,
/// `AuthenticatorStatus`): certification levels, an update, or a compromise. Kept as the text the BLOB
/// holds, so that a status added to the specification later is kept rather than refused.
public struct AuthenticatorStatus: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let revoked = AuthenticatorStatus(rawValue: "REVOKED")
    public static let attestationKeyCompromise = AuthenticatorStatus(rawValue: "ATTESTATION_KEY_COMPROMISE")
    public static let userVerificationBypass = AuthenticatorStatus(rawValue: "USER_VERIFICATION_BYPASS")
    public static let userKeyRemoteCompromise = AuthenticatorStatus(rawValue: "USER_KEY_REMOTE_COMPROMISE")
    public static let userKeyPhysicalCompromise = AuthenticatorStatus(rawValue: "USER_KEY_PHYSICAL_COMPROMISE")

    /// The statuses that say the model (or its attestation key) can no longer be trusted to protect a
    /// passkey: a relying party should not accept new passkeys from it.
    public static let compromised: Set<AuthenticatorStatus> = [
        .revoked, .attestationKeyCompromise, .userVerificationBypass, .userKeyRemoteCompromise, .userKeyPhysicalCompromise,
    ]

    public var isCompromised: Bool { Self.compromised.contains(self) }

    public var description: String { rawValue }
}
