import Foundation
import HTTPTypes
import SoftAuthenticator
import Testing
@testable import LatchkeyServer

/// Someone signed up in process with a passkey of their own: the session the sign-up gave and the
/// software authenticator that holds the passkey (to sign in again, or to confirm with it).
struct SignedUp: Sendable {
    let session: APIClient.Session
    let authenticator: SoftAuthenticator
    var token: String { session.token }
    var accountId: String { session.accountId }
}

/// The steps the in-process suites of recovery, device approval, email, admin, webhooks and the audit
/// trail share, done through the public HTTP routes as the page, an operator's tool or another device
/// would do them.
extension APIClient {
    /// A new account with a passkey from a fresh software authenticator.
    func signUp(_ name: String = "Ada Lovelace") async throws -> SignedUp {
        let authenticator = SoftAuthenticator(store: InMemoryCredentialStore())
        return SignedUp(session: try await register(name, with: authenticator), authenticator: authenticator)
    }

    /// A new session from signing in with `authenticator`'s passkey; `headers` go with the verify step
    /// (a `User-Agent`, say).
    func signIn(with authenticator: SoftAuthenticator, headers: HTTPFields = [:]) async throws -> APIClient.Session {
        let credential = try await loginResponse(with: authenticator)
        let reply = try await send(.post, "/api/login/verify", body: try JSONEncoder().encode(["credential": credential]), headers: headers)
        try #require(reply.status == .ok, "login: \(reply.text)")
        let account = try #require(reply.json?["account"] as? [String: Any])
        return Session(token: try #require(reply.json?["token"] as? String), accountId: try #require(account["id"] as? String))
    }

    /// The add-passkey ceremony with `token` (a session, or a restricted one a recovery code or an
    /// approved device gave): the reply of its verify step, or of its options step when that was refused.
    func addPasskey(with token: String, from authenticator: SoftAuthenticator) async throws -> Reply {
        let options = try await send(.post, "/api/registration/options", object: [:], token: token)
        guard options.status == .ok else { return options }
        let credential = try authenticator.makeCredential(try creationOptions(options), origin: TestServer.origin)
        return try await send(.post, "/api/registration/verify", json: ["credential": credential], token: token)
    }

    /// The trail through the admin API (`GET /api/admin/audit`, newest first), for one account when
    /// `account` is given; `query` adds parameters (`event=…`).
    func auditTrail(key: String, account: String? = nil, query: String = "", limit: Int = 100) async throws -> [[String: Any]] {
        var path = "/api/admin/audit?limit=\(limit)"
        if let account { path += "&account=\(account)" }
        if !query.isEmpty { path += "&" + query }
        let reply = try await send(.get, path, token: key)
        try #require(reply.status == .ok, "audit: \(reply.text)")
        return try #require(reply.json?["events"] as? [[String: Any]], "\(reply.text)")
    }

    /// Every route of the API document that is served (`GET /openapi.json`), as (method, path) with each
    /// `{parameter}` replaced by `placeholder`.
    func documentedRoutes(placeholder: String = "AAAA") async throws -> [(method: HTTPRequest.Method, path: String, template: String)] {
        let reply = try await send(.get, "/openapi.json")
        try #require(reply.status == .ok, "openapi.json: \(reply.status)")
        let paths = try #require(reply.json?["paths"] as? [String: [String: Any]])
        var routes: [(HTTPRequest.Method, String, String)] = []
        for (template, item) in paths.sorted(by: { $0.key < $1.key }) {
            let concrete = template.replacingOccurrences(of: #"\{[^}]+\}"#, with: placeholder, options: .regularExpression)
            for name in ["get", "post", "put", "patch", "delete"] where item[name] != nil {
                routes.append((HTTPRequest.Method(rawValue: name.uppercased())!, concrete, template))
            }
        }
        return routes
    }
}

/// Waits for something the server does in the background (the mail outbox, webhook deliveries): checks
/// `condition` every 20 ms for at most `seconds`, and says whether it came true.
func eventually(within seconds: Double = 10, _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = Date() + seconds
    while Date() < deadline {
        if try await condition() { return true }
        try await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
