/// Why the software authenticator refused, in the terms a browser would use (the DOMException name in
/// `domExceptionName`) so that a caller can react as it would to `navigator.credentials`.
public enum SoftAuthenticatorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The origin is not a secure context (https, or http on localhost) or is not a URL.
    case invalidOrigin(String)
    /// The RP ID is neither the origin's host nor a registrable suffix of it.
    case rpIdNotValidForOrigin(rpId: String, origin: String)
    /// None of pubKeyCredParams is ES256 or Ed25519.
    case noSupportedAlgorithm([Int])
    /// A credential in excludeCredentials already exists here for this RP.
    case credentialExcluded
    /// User verification is required but the authenticator's user-verified switch is off.
    case userVerificationUnavailable
    /// No stored credential fits the request (none for this RP, or none of allowCredentials).
    case noCredentials(rpId: String)
    /// The caller's chooser declined every candidate.
    case cancelled
    /// The options cannot be used (bad base64url challenge or user id, missing members).
    case invalidOptions(String)
    /// The credential store cannot be read or written.
    case store(String)

    public var domExceptionName: String {
        switch self {
        case .invalidOrigin, .rpIdNotValidForOrigin: "SecurityError"
        case .noSupportedAlgorithm: "NotSupportedError"
        case .credentialExcluded: "InvalidStateError"
        case .userVerificationUnavailable, .noCredentials, .cancelled: "NotAllowedError"
        case .invalidOptions: "TypeError"
        case .store: "UnknownError"
        }
    }

    public var description: String {
        switch self {
        case .invalidOrigin(let origin): "origin \"\(origin)\" is not a secure context (https, or http on localhost)"
        case .rpIdNotValidForOrigin(let rpId, let origin): "RP ID \"\(rpId)\" is not the host of \(origin) or a registrable suffix of it"
        case .noSupportedAlgorithm(let algs): "none of the requested algorithms \(algs) is supported (ES256 -7, EdDSA -8, Ed25519 -19)"
        case .credentialExcluded: "a passkey for this account already exists on this authenticator (excludeCredentials)"
        case .userVerificationUnavailable: "user verification is required but this authenticator's user-verified switch is off"
        case .noCredentials(let rpId): "no passkey for \(rpId) on this authenticator fits the request"
        case .cancelled: "no passkey was chosen"
        case .invalidOptions(let reason): "the options are unusable: \(reason)"
        case .store(let reason): "credential store: \(reason)"
        }
    }
}
