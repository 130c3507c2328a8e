import Hummingbird

/// Who is calling: the account behind a bearer token (API clients) or the session cookie (the web page).
struct RequestAuthentication: Sendable {
    let sessions: SessionService
    let origins: [String]

    struct Caller: Sendable {
        let accountId: String
        let token: String
    }

    /// The caller, or nil when the request carries no credentials at all. Credentials that are present
    /// but wrong (malformed header, unknown or expired token) are an error, never silently anonymous.
    func caller(of request: Request) async throws -> Caller? {
        let token: String
        if let header = request.headers[.authorization] {
            token = try Self.bearerToken(header)
        } else if let cookie = SessionCookie.token(in: request.headers[.cookie]) {
            // A cookie rides along with any request the browser sends; state changes must come from our own page.
            if request.method != .get, request.method != .head, let origin = request.headers[.origin],
               !origins.contains(origin) {
                throw APIError(.forbidden, "origin_not_allowed", "Requests with the session cookie must come from this site's own pages.")
            }
            token = cookie
        } else {
            return nil
        }
        guard Self.isWellFormed(token), let accountId = try await sessions.accountId(for: token) else {
            throw APIError.notAuthenticated
        }
        return Caller(accountId: accountId, token: token)
    }

    /// The caller, required.
    func require(_ request: Request) async throws -> Caller {
        guard let caller = try await caller(of: request) else { throw APIError.notAuthenticated }
        return caller
    }

    /// `Bearer <token>`: the scheme case-insensitively, one space, then the whole rest of the header.
    static func bearerToken(_ header: String) throws -> String {
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty else {
            throw APIError(.unauthorized, "not_authenticated", "Use the header Authorization: Bearer <token>.")
        }
        return String(parts[1])
    }

    /// Tokens are 43 base64url characters; anything else cannot be one, and is refused before any look-up.
    static func isWellFormed(_ token: String) -> Bool {
        token.utf8.count == 43 && token.utf8.allSatisfy { c in
            (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c == 0x2d || c == 0x5f
        }
    }
}
