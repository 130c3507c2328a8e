import Foundation
import HummingbirdTesting
import SoftAuthenticator
import Testing
@testable import LatchkeyServer

/// What the invitation suites repeat, over the public routes as the operator, the page and a person do it:
/// invitations made through `POST /api/admin/invites` (or accounts through `POST /api/admin/accounts`) with
/// a write key, looked at and used through `/api/invites/…`, and the first passkey added with the
/// restricted session through the add-passkey ceremony. Only the admin key goes into the store directly.
struct InvitationTestFlow: Sendable {
    let api: APIClient
    let application: LatchkeyApplication
    let adminKey: String

    /// Runs `body` against a fresh server with `configuration` (sign-up by invitation unless it says
    /// otherwise) and a write admin key.
    static func run(
        _ configuration: ServerConfiguration = TestServer.configuration { $0.signUp = .invite }, now: @escaping @Sendable () -> Date = { Date() },
        over setup: TestingSetup = .router, _ body: @Sendable (InvitationTestFlow) async throws -> Void
    ) async throws {
        try await TestServer.withApplication(configuration, now: now, over: setup) { (api, application) async throws in
            let key = try await OIDCClientFactsTests.adminKey(application.store)
            try await body(InvitationTestFlow(api: api, application: application, adminKey: key))
        }
    }

    /// An invitation made through the admin API: its answer (`invitation`, `code`, `link`, `mailed`).
    func invite(_ body: [String: Any] = [:]) async throws -> [String: Any] {
        let reply = try await api.send(.post, "/api/admin/invites", object: body, token: adminKey)
        try #require(reply.status == .created, "invite: \(reply.text)")
        return try #require(reply.json)
    }

    static func code(_ issued: [String: Any]) throws -> String {
        try #require(issued["code"] as? String)
    }

    func preview(_ code: String) async throws -> APIClient.Reply {
        try await api.send(.post, "/api/invites/preview", object: ["code": code])
    }

    func exchange(_ code: String, displayName: String? = "Grace Hopper") async throws -> APIClient.Reply {
        var body: [String: Any] = ["code": code]
        if let displayName { body["displayName"] = displayName }
        return try await api.send(.post, "/api/invites/exchange", object: body)
    }

    /// A use that must succeed: the restricted session's token and its account's id.
    func use(_ code: String, displayName: String? = "Grace Hopper") async throws -> APIClient.Session {
        let reply = try await exchange(code, displayName: displayName)
        try #require(reply.status == .created, "exchange: \(reply.text)")
        let token = try #require(reply.json?["token"] as? String)
        let account = try #require(reply.json?["account"] as? [String: Any])
        return APIClient.Session(token: token, accountId: try #require(account["id"] as? String))
    }

    /// The add-passkey ceremony with `token`: the verify's reply (or the options' when they were refused).
    func addPasskey(token: String, with authenticator: SoftAuthenticator) async throws -> APIClient.Reply {
        let options = try await api.send(.post, "/api/registration/options", object: [:], token: token)
        guard options.status == .ok else { return options }
        let credential = try authenticator.makeCredential(try api.creationOptions(options), origin: TestServer.origin)
        return try await api.send(.post, "/api/registration/verify", json: ["credential": credential], token: token)
    }

    /// The account as the admin API shows it.
    func account(_ id: String) async throws -> [String: Any] {
        let reply = try await api.send(.get, "/api/admin/accounts/\(id)", token: adminKey)
        try #require(reply.status == .ok, "account: \(reply.text)")
        return try #require(reply.json)
    }

    /// How many accounts the database holds.
    func accountCount() async throws -> Int {
        try await application.store.connections.withConnection { db in
            try await db.raw("SELECT count(*) AS n FROM accounts").first()?.decode(column: "n", as: Int.self) ?? -1
        }
    }

    /// The kinds of the audit events of an account, oldest first.
    func events(of accountId: String) async throws -> [String] {
        let reply = try await api.send(.get, "/api/admin/audit?account=\(accountId)&limit=100", token: adminKey)
        try #require(reply.status == .ok, "audit: \(reply.text)")
        let events = try #require(reply.json?["events"] as? [[String: Any]])
        return events.compactMap { $0["event"] as? String }.reversed()
    }
}
