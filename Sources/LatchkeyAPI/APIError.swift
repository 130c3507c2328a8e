import WebAuthn

/// A refusal the API reports to the client as `{"error": {"code", "message"}}` (DESIGN §3). The kind
/// decides the HTTP status; the code is stable and snake_case; the message is a sentence for people and
/// never carries internals (SQL, stack traces, secrets). Codes come from one catalogue (`ErrorCode`).
package struct APIError: Error, Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// 400: the request is malformed.
        case badRequest
        /// 401: not authenticated, or a ceremony failed verification.
        case unauthorized
        /// 403: authenticated, but not allowed to do this.
        case forbidden
        /// 404: no such resource (or credential).
        case notFound
        /// 405: the path exists, the method does not.
        case methodNotAllowed
        /// 409: conflicts with the current state.
        case conflict
        /// 413: the body is larger than 64 KiB.
        case tooLarge
        /// 422: a field is present and well-typed but breaks a rule.
        case invalidField
        /// 429: this client made too many requests; `Retry-After` says when to come back.
        case rateLimited
        /// 500: the server's own fault.
        case internalError
        /// 503: a dependency (the database) cannot be reached right now; `Retry-After` says when to try.
        case unavailable
    }

    package let kind: Kind
    /// The code from `ErrorCode`'s catalogue, or a WebAuthn rule's.
    package let code: String
    package let message: String

    /// A refusal with a code from the catalogue; its status is the code's.
    package init(_ code: ErrorCode, _ message: String) {
        self.kind = code.kind
        self.code = code.rawValue
        self.message = message
    }

    /// A ceremony that failed WebAuthn's verification: 401 with the failed rule's own code and sentence
    /// (the one place WebAuthn's errors become the API's).
    package init(_ error: WebAuthnError) {
        self.kind = .unauthorized
        self.code = error.code
        self.message = error.message
    }

    package static let notAuthenticated = APIError(.notAuthenticated, "Sign in first: this needs a valid session token.")
    package static let unknownChallenge = APIError(.unknownChallenge, "The challenge is unknown, expired or already used; start the ceremony again.")
    package static let unknownCredential = APIError(.unknownCredential, "This passkey is not registered here.")
    package static let unknownPasskey = APIError(.unknownPasskey, "This account has no passkey with that id.")
    package static let recentSignInRequired = APIError(
        .recentSignInRequired, "Adding a passkey needs a recent sign-in: sign in with one of your passkeys again, then add it.")
    package static let accountDisabled = APIError(
        .accountDisabled, "This account has been disabled by the service's operator; contact them to have it enabled again.")
    package static func tooManyPasskeys(_ limit: Int) -> APIError {
        APIError(.tooManyPasskeys, "This account already has \(limit) passkeys, the most it may hold; remove one first.")
    }
    package static let bodyTooLarge = APIError(.bodyTooLarge, "The request body is larger than 64 KiB.")
    package static let missingBody = APIError(.missingBody, "This request needs a JSON body.")
    package static let jsonContentTypeRequired = APIError(.unsupportedContentType, "Send the body as Content-Type: application/json.")
    package static let internalError = APIError(.internalError, "The server could not complete this request.")
    package static let databaseUnavailable = APIError(
        .databaseUnavailable, "The database cannot be reached right now; nothing was changed. Try again in a few seconds.")
    // The refusals more than one feature sends (they were constants on AdminService, RecoveryService,
    // EmailService and DeviceApprovalService, so that accounts and recovery reached into admin for theirs).
    package static let unknownAccount = APIError(.unknownAccount, "There is no account with this id.")
    package static let usernameTaken = APIError(.usernameTaken, "Another account has this username (username); choose another.")
    package static let unknownClient = APIError(.unknownClient, "There is no OpenID Connect client with this id (latchkey admin clients list).")
    package static let invalidRecoveryCode = APIError(
        .invalidRecoveryCode, "This recovery code cannot be used: it may be mistyped, expired, already used or revoked. Ask for a new one.")
    package static let mailOff = APIError(.notEnabled, "This server sends no email (it was started without --smtp-url).")
    package static let recoveryByEmailOff = APIError(.notEnabled, "This server does not send recovery links by email (--recovery-email is off).")
    package static let unusableEmailLink = APIError(
        .unknownEmailToken,
        "This confirmation link cannot be used: it may have expired, been used or replaced by a newer one, or belong to another account. Ask for a new one.")
    package static let unknownDeviceRequest = APIError(
        .unknownDeviceRequest, "There is no pending sign-in request with this code; it may have expired (they last 5 minutes).")
}
