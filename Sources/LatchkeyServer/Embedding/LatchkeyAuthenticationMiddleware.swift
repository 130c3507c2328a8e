import Hummingbird
import LatchkeyAPI
import LatchkeyDatabase

/// Puts the caller's account into the request context (`context.latchkeyAccount`) for the handlers
/// after it: from `Authorization: Bearer <session token>` or from the page's session cookie (with the
/// same-origin check for requests that change something). With `required`, a request without a valid
/// session is answered 401 `not_authenticated` before it reaches them; without it, anonymous requests
/// pass with no account. Credentials that are present but wrong are always a 401, never anonymous.
/// Latchkey's own protected routes sit behind it too (their route collections), so no handler checks a
/// session itself. A restricted (recovery) session passes only where `allowsRecovery` (adding a passkey);
/// anywhere else it is 403 `recovery_session_restricted` (see `RecoveryGate`).
public struct LatchkeyAuthenticationMiddleware<Context: LatchkeyRequestContext>: RouterMiddleware {
    let authentication: RequestAuthentication
    let required: Bool
    var allowsRecovery = false

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        do {
            if let caller = try await authentication.caller(of: request) {
                guard !caller.method.isRestricted || allowsRecovery else {
                    throw APIError(.recoverySessionRestricted, "This is a recovery session: it can only add a passkey.")
                }
                context.latchkeyAccount = LatchkeyAccount(caller)
            } else if required {
                throw APIError.notAuthenticated
            }
        } catch let error as APIError {
            return try error.response(from: request, context: context)
        } catch where DatabaseAvailability.isUnavailable(error) {
            return try APIError.databaseUnavailable.response(from: request, context: context)
        }
        return try await next(request, context)
    }
}
