import HTTPTypes
import Hummingbird
import LatchkeyAPI

/// Who is calling: the account behind a bearer token (API clients) or the session cookie (the web page).
struct RequestAuthentication: Sendable {
    let sessions: SessionService
    let origins: [String]
    /// Whether the page is served over https (the cookie's name depends on it).
    let secureCookies: Bool
    /// `--cookie-domain`: the cookie's `Domain`, which also names it over https (`SessionCookie`).
    var cookieDomain: String? = nil

    struct Caller: Sendable {
        /// The account, read with the session in one query.
        let account: AccountRecord
        let token: String
        /// How the session was made; a recovery session may only add a passkey (`RecoveryGate`).
        var method: SessionMethod = .passkey
        /// The grant a recovery session came from.
        var recoveryGrant: String? = nil

        var accountId: String { account.id }
    }

    /// The caller, or nil when the request carries no credentials at all. Credentials that are present
    /// but wrong (malformed header, unknown or expired token) are an error, never silently anonymous.
    func caller(of request: Request) async throws -> Caller? {
        let token: String
        if let header = request.headers[.authorization] {
            token = try Self.bearerToken(header)
        } else if let cookie = SessionCookie.token(in: request.headers[.cookie], secure: secureCookies, domain: cookieDomain) {
            if request.method != .get, request.method != .head { try checkSameSite(request) }
            token = cookie
        } else {
            return nil
        }
        guard Self.isWellFormed(token), let found = try await sessions.account(for: token) else {
            throw APIError.notAuthenticated
        }
        // A token's text and its row must agree on what it is (the gate trusts the text).
        guard found.method.isRestricted == token.hasPrefix(SessionToken.recoveryPrefix) else { throw APIError.notAuthenticated }
        return Caller(account: found.account, token: token, method: found.method, recoveryGrant: found.recoveryGrant)
    }

    /// A cookie rides along with any request the browser sends, so a state change with the cookie must
    /// show that it came from our own page: an allowed `Origin` (browsers send it on every non-GET
    /// fetch), or, where a client left `Origin` out, `Sec-Fetch-Site: same-origin`. With neither the
    /// request cannot be told apart from a forged one and is refused; API clients use the bearer token.
    private func checkSameSite(_ request: Request) throws {
        if let origin = request.headers[.origin] {
            guard origins.contains(origin) else {
                throw APIError(.originNotAllowed, "Requests with the session cookie must come from this site's own pages.")
            }
        } else if Self.secFetchSite.flatMap({ request.headers[$0] }) != "same-origin" {
            throw APIError(.originRequired, "Requests that change something with the session cookie must carry an Origin header (or use Authorization: Bearer).")
        }
    }

    static let secFetchSite = HTTPField.Name("Sec-Fetch-Site")

    /// `Bearer <token>`: the scheme case-insensitively, one space, then the whole rest of the header.
    static func bearerToken(_ header: String) throws -> String {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
            throw APIError(.notAuthenticated, "Use the header Authorization: Bearer <token>.")
        }
        return String(parts[1])
    }

    /// Tokens are 43 base64url characters (a recovery session's with `rcv_` before them); anything else
    /// cannot be one, and is refused before any look-up.
    static func isWellFormed(_ token: String) -> Bool {
        let bare = token.hasPrefix(SessionToken.recoveryPrefix) ? token.dropFirst(SessionToken.recoveryPrefix.count) : token[...]
        return bare.utf8.count == 43 && bare.utf8.allSatisfy { c in
            (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c == 0x2d || c == 0x5f
        }
    }
}
