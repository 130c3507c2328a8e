import Hummingbird
import LatchkeyAPI

/// The one place a restricted session (one a recovery grant gave: its token starts `rcv_`) is held to
/// the one thing it may do — add a passkey: `POST …/api/registration/options` and `…/verify`. Any other
/// request that presents such a token, on any route there is or will be, is answered 403
/// `recovery_session_restricted` before its handler runs. It reads only the request's text (the token's
/// prefix, the method and the path as the router splits it), so it costs nothing per request and needs
/// no route to opt in. `latchkey serve` puts it on the whole router; `Latchkey.mount` on the groups it
/// makes. (`LatchkeyAuthenticationMiddleware` also refuses a recovery session where a route does not
/// allow one, should a route ever be reached some other way.)
struct RecoveryGate<Context: RequestContext>: RouterMiddleware {
    /// The allowed routes' path segments (`["api", "registration", "options"]` under the mount prefix).
    let allowed: [[Substring]]

    init(prefix: String = "") {
        let base = prefix.split(separator: "/")
        allowed = [base + ["api", "registration", "options"], base + ["api", "registration", "verify"]]
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard Self.presentsRecoverySession(request) else { return try await next(request, context) }
        let segments = request.uri.path.split(separator: "/")
        guard request.method == .post, allowed.contains(segments) else {
            throw APIError(
                .recoverySessionRestricted,
                "This is a recovery session: it can only add a passkey (POST /api/registration/options, then /verify). Sign in with the new passkey for everything else.")
        }
        return try await next(request, context)
    }

    /// Whether the request carries a restricted session's token: as its bearer token, or as the session
    /// cookie's value under any of its names (`__Host-`, `__Secure-` with `--cookie-domain`, or plain). The page never sets a recovery token as its cookie (it keeps it
    /// in memory and sends it as a bearer token), but a caller can send any cookie, and the compatibility
    /// routes read the cookie themselves (review 4, S4-11).
    static func presentsRecoverySession(_ request: Request) -> Bool {
        if let header = request.headers[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1)
            if parts.count == 2 && parts[0].lowercased() == "bearer" && parts[1].hasPrefix(SessionToken.recoveryPrefix) { return true }
        }
        let cookies = request.headers[values: .cookie]
        guard !cookies.isEmpty else { return false }
        let header = cookies.joined(separator: ";")
        return [(true, nil), (true, "domain"), (false, nil)].contains { (secure: Bool, domain: String?) in
            SessionCookie.token(in: header, secure: secure, domain: domain)?.hasPrefix(SessionToken.recoveryPrefix) == true
        }
    }
}
