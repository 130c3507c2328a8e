import LatchkeyClient

/// `ASAuthorizationError.Code` by raw value (the codes are stable `NSError` codes in
/// `ASAuthorizationErrorDomain`), so that turning a platform failure into a `ClientError` is plain code
/// the Linux tests run. AuthenticationServices reports "no passkey here" as the user cancelling the sheet,
/// so `ClientError.noPasskeyForServer` never comes from this path.
public enum AuthorizationFailure: Int, Sendable, CaseIterable {
    case unknown = 1000
    case canceled = 1001
    case invalidResponse = 1002
    case notHandled = 1003
    case failed = 1004
    case notInteractive = 1005
    case matchedExcludedCredential = 1006
    case credentialImport = 1007
    case credentialExport = 1008
    case preferSignInWithApple = 1009
    case deviceNotConfiguredForPasskeyCreation = 1010

    /// What the failure means for the user, in words a user interface can show before the system's own message.
    public var reason: String {
        switch self {
        case .canceled: "cancelled (or no passkey for this server on this device)"
        case .matchedExcludedCredential: "this device already holds a passkey for this account"
        case .deviceNotConfiguredForPasskeyCreation: "this device cannot create passkeys (no passcode or iCloud Keychain)"
        case .notInteractive: "the request needed the user but could not show the passkey sheet"
        case .failed: "the request failed (is the server's domain in the app's webcredentials associated domains?)"
        case .invalidResponse, .notHandled, .unknown, .credentialImport, .credentialExport, .preferSignInWithApple:
            "the platform could not complete the request"
        }
    }

    /// The client's error for an `ASAuthorizationError` with `code` and the system's `message`.
    public static func clientError(code: Int, message: String) -> ClientError {
        guard let failure = AuthorizationFailure(rawValue: code) else {
            return .authenticatorRefused("AuthenticationServices error \(code): \(message)")
        }
        return .authenticatorRefused("\(failure.reason): \(message)")
    }
}
