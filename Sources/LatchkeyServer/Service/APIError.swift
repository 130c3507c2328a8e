/// A refusal the API reports to the client as `{"error": {"code", "message"}}` (DESIGN §3). The kind
/// decides the HTTP status; the code is stable and snake_case; the message is a sentence for people and
/// never carries internals (SQL, stack traces, secrets).
struct APIError: Error, Sendable, Equatable {
    enum Kind: Sendable, Equatable {
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

    let kind: Kind
    let code: String
    let message: String

    init(_ kind: Kind, _ code: String, _ message: String) {
        self.kind = kind
        self.code = code
        self.message = message
    }

    static let notAuthenticated = APIError(.unauthorized, "not_authenticated", "Sign in first: this needs a valid session token.")
    static let unknownChallenge = APIError(
        .unauthorized, "unknown_challenge", "The challenge is unknown, expired or already used; start the ceremony again.")
    static let unknownCredential = APIError(.notFound, "unknown_credential", "This passkey is not registered here.")
    static let recentSignInRequired = APIError(
        .forbidden, "recent_sign_in_required", "Adding a passkey needs a recent sign-in: sign in with one of your passkeys again, then add it.")
    static func tooManyPasskeys(_ limit: Int) -> APIError {
        APIError(.conflict, "too_many_passkeys", "This account already has \(limit) passkeys, the most it may hold; remove one first.")
    }
    static let databaseUnavailable = APIError(
        .unavailable, "database_unavailable", "The database cannot be reached right now; nothing was changed. Try again in a few seconds.")
}
