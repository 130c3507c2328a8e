import Foundation
import HTTPTypes
import LatchkeyAPI
import SoftAuthenticator
import Testing
@testable import LatchkeyServer

/// Recovery grants in process (`RecoveryService`, `RecoveryGate`), as Tests/System/Recovery/test_recovery.py
/// drives the real binary: an operator's recovery key issues a grant through the admin API; its code is
/// exchanged once for a restricted session that can add one passkey and nothing else; adding it uses the
/// grant up and ends the account's other sessions. Every code that cannot be exchanged — used, replaced,
/// revoked, expired, guessed at, malformed — gets the one refusal, which says nothing about why.
@Suite("Recovery grants, in process")
struct RecoveryGrantTests {
    /// A fresh server, a person, and a recovery-scoped admin key (which also reads).
    struct Desk: Sendable {
        let api: APIClient
        let application: LatchkeyApplication
        let person: SignedUp
        let key: String
    }

    static func run(
        _ configuration: ServerConfiguration = TestServer.configuration(), now: @escaping @Sendable () -> Date = { Date() },
        _ body: @Sendable (Desk) async throws -> Void
    ) async throws {
        try await TestServer.withApplication(configuration, now: now) { api, application in
            let key = try await OIDCClientFactsTests.adminKey(application.store, scope: .recovery)
            try await body(Desk(api: api, application: application, person: try await api.signUp("Grace Hopper"), key: key))
        }
    }

    /// `POST /api/admin/accounts/{id}/recovery`, with `ttlSeconds` when given.
    static func issue(_ desk: Desk, ttl: Int? = nil) async throws -> (code: String, grant: [String: Any], link: String) {
        let reply = try await desk.api.send(
            .post, "/api/admin/accounts/\(desk.person.accountId)/recovery", object: ttl.map { ["ttlSeconds": $0] } ?? [:], token: desk.key)
        try #require(reply.status == .created, "issue: \(reply.text)")
        return (
            try #require(reply.json?["code"] as? String), try #require(reply.json?["grant"] as? [String: Any]),
            try #require(reply.json?["link"] as? String)
        )
    }

    static func exchange(_ api: APIClient, _ code: String) async throws -> APIClient.Reply {
        try await api.send(.post, "/api/recovery/exchange", object: ["code": code])
    }

    /// The account's grants as the admin API lists them, by id.
    static func grants(_ desk: Desk) async throws -> [String: [String: Any]] {
        let reply = try await desk.api.send(.get, "/api/admin/recovery?account=\(desk.person.accountId)", token: desk.key)
        let list = try #require(reply.array, "\(reply.text)")
        #expect(list.allSatisfy { $0["code"] == nil && $0["secretHash"] == nil }, "a listed grant never shows its code: \(reply.text)")
        return Dictionary(uniqueKeysWithValues: list.map { ($0["id"] as? String ?? "", $0) })
    }

    /// Whether `reply` is the one refusal: 401 `invalid_recovery_code` with the one sentence.
    static func isTheRefusal(_ reply: APIClient.Reply) -> Bool {
        reply.status == .unauthorized && reply.errorCode == "invalid_recovery_code"
            && (reply.json?["error"] as? [String: Any])?["message"] as? String == APIError.invalidRecoveryCode.message
    }

    @Test("an operator's grant: its code gives a restricted session that adds one passkey, uses the grant up and ends the account's other sessions")
    func operatorPath() async throws {
        try await Self.run { desk in
            let api = desk.api
            let issued = try await Self.issue(desk)
            #expect(issued.code.wholeMatch(of: /[A-Z2-7]{5}(-[A-Z2-7]{5}){4}/) != nil, "\(issued.code)")
            #expect(issued.link == TestServer.origin + "/recover#" + issued.code)
            #expect(issued.grant["state"] as? String == "issued")
            #expect((issued.grant["issuedBy"] as? String)?.hasPrefix("admin:ak") == true, "\(issued.grant)")

            // Case and separators are forgiven, as a person types a code read out to them.
            let exchanged = try await Self.exchange(api, issued.code.lowercased().replacingOccurrences(of: "-", with: " "))
            try #require(exchanged.status == .created, "\(exchanged.text)")
            let restricted = try #require(exchanged.json?["token"] as? String)
            #expect(restricted.hasPrefix(SessionToken.recoveryPrefix))
            #expect((exchanged.json?["account"] as? [String: Any])?["id"] as? String == desk.person.accountId)

            let newDevice = SoftAuthenticator(store: InMemoryCredentialStore())
            let added = try await api.addPasskey(with: restricted, from: newDevice)
            #expect(added.status == .created, "\(added.text)")
            #expect(try await api.send(.get, "/api/account", token: desk.person.token).status == .unauthorized, "the old session ended")
            #expect(try await api.send(.post, "/api/registration/options", object: [:], token: restricted).status == .unauthorized,
                    "the restricted session ended with the passkey it added")
            let signedIn = try await api.signIn(with: newDevice)
            #expect(signedIn.accountId == desk.person.accountId)
            #expect(try await api.send(.get, "/api/account/passkeys", token: signedIn.token).array?.count == 2)

            #expect(Self.isTheRefusal(try await Self.exchange(api, issued.code)), "a used code")
            let grantId = try #require(issued.grant["id"] as? String)
            #expect(try await Self.grants(desk)[grantId]?["state"] as? String == "used")
            let trail = try await api.auditTrail(key: desk.key, account: desk.person.accountId)
            let kinds = trail.compactMap { $0["event"] as? String }
            for expected in ["recovery.issued", "recovery.exchanged", "recovery.completed", "recovery.refused", "passkey.added"] {
                #expect(kinds.contains(expected), "\(expected) in \(kinds)")
            }
            #expect(trail.first { $0["event"] as? String == "recovery.completed" }?["actor"] as? String == "recovery")
        }
    }

    @Test("a restricted session is refused 403 recovery_session_restricted on every documented route but the add-passkey pair, as a cookie too")
    func restrictedEverywhere() async throws {
        try await Self.run { desk in
            let api = desk.api
            let exchanged = try await Self.exchange(api, try await Self.issue(desk).code)
            let restricted = try #require(exchanged.json?["token"] as? String, "\(exchanged.text)")
            let allowed = ["POST /api/registration/options", "POST /api/registration/verify"]
            var tried = 0
            for route in try await api.documentedRoutes() where !allowed.contains("\(route.method) \(route.template)") {
                let reply = try await api.send(route.method, route.path, body: route.method == .get ? nil : Data("{}".utf8), token: restricted)
                #expect(reply.status == .forbidden && reply.errorCode == "recovery_session_restricted", "\(route.method) \(route.template): \(reply.status) \(reply.text)")
                tried += 1
            }
            #expect(tried > 40, "the document has the routes: \(tried)")
            for name in [SessionCookie.name(secure: true, domain: nil), SessionCookie.name(secure: true, domain: "example.com"), SessionCookie.name(secure: false, domain: nil)] {
                let reply = try await api.send(.get, "/api/account", headers: [.cookie: "\(name)=\(restricted)"])
                #expect(reply.status == .forbidden && reply.errorCode == "recovery_session_restricted", "\(name): \(reply.text)")
            }
            let options = try await api.send(.post, "/api/registration/options", object: [:], token: restricted)
            #expect(options.status == .ok, "the one thing it may do: \(options.text)")
        }
    }

    @Test("used, replaced, revoked, expired, over-guessed and malformed codes get the one refusal; the grant says which it was")
    func oneRefusal() async throws {
        let clock = TestClock()
        try await Self.run(now: { clock.now }) { desk in
            let api = desk.api
            let first = try await Self.issue(desk)
            let second = try await Self.issue(desk)
            #expect(Self.isTheRefusal(try await Self.exchange(api, first.code)), "issuing again revokes the outstanding grant")
            let secondId = try #require(second.grant["id"] as? String)
            #expect(try await api.send(.delete, "/api/admin/recovery/\(secondId)", token: desk.key).status == .noContent)
            #expect(Self.isTheRefusal(try await Self.exchange(api, second.code)), "revoked")
            #expect(try await api.send(.delete, "/api/admin/recovery/\(secondId)", token: desk.key).errorCode == "unknown_recovery_grant")

            let expiring = try await Self.issue(desk, ttl: 300)
            clock.advance(by: 301)
            #expect(Self.isTheRefusal(try await Self.exchange(api, expiring.code)), "expired")

            let guessed = try await Self.issue(desk)
            let prefix = String(guessed.code.prefix(5))
            for attempt in 0..<RecoveryService.attemptLimit {
                let wrong = prefix + "-AAAAA-AAAAA-AAAAA-AAAA" + (attempt % 2 == 0 ? "C" : "B")
                #expect(Self.isTheRefusal(try await Self.exchange(api, wrong)), "wrong secret \(attempt)")
            }
            #expect(Self.isTheRefusal(try await Self.exchange(api, guessed.code)), "five wrong tries revoked the grant")

            for junk in ["", "x", String(repeating: "A", count: 64), String(repeating: "A", count: 65), "!!!!!-@@@@@"] {
                #expect(Self.isTheRefusal(try await Self.exchange(api, junk)), "\(junk)")
            }

            let grants = try await Self.grants(desk)
            func state(_ issued: (code: String, grant: [String: Any], link: String)) -> [String: Any]? { grants[issued.grant["id"] as? String ?? ""] }
            #expect(state(first)?["state"] as? String == "revoked")
            #expect(state(expiring)?["state"] as? String == "expired")
            let overGuessed = try #require(state(guessed))
            #expect(overGuessed["state"] as? String == "revoked" && overGuessed["failedAttempts"] as? Int == RecoveryService.attemptLimit, "\(overGuessed)")
        }
    }

    @Test("a grant lives 5 minutes to a day: any other ttlSeconds is 422 before it becomes a time (S4-2)")
    func lifetimeBounds() async throws {
        try await Self.run { desk in
            for ttl in [299, 86_401, 0, -1, Int.max] {
                let reply = try await desk.api.send(
                    .post, "/api/admin/accounts/\(desk.person.accountId)/recovery", object: ["ttlSeconds": ttl], token: desk.key)
                #expect(reply.status == .unprocessableContent && reply.errorCode == "invalid_field", "\(ttl): \(reply.text)")
            }
            #expect(try await Self.grants(desk).isEmpty)
            #expect(try await Self.issue(desk, ttl: 300).grant["state"] as? String == "issued")
            #expect(try await Self.issue(desk, ttl: 86_400).grant["state"] as? String == "issued")
        }
    }

    @Test("of 20 concurrent exchanges of one code exactly one gets a session")
    func concurrentExchanges() async throws {
        try await Self.run { desk in
            let code = try await Self.issue(desk).code
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<20 { group.addTask { try await Self.exchange(desk.api, code).status.code } }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.sorted() == [201] + Array(repeating: 401, count: 19), "\(statuses)")
        }
    }

    @Test("neither the code nor the restricted session's token is in the database file in clear")
    func nothingInClear() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-recovery-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        try await Self.run(TestServer.configuration { $0.database = .sqlite(path: path) }) { desk in
            let issued = try await Self.issue(desk)
            let exchanged = try await Self.exchange(desk.api, issued.code)
            let token = try #require(exchanged.json?["token"] as? String, "\(exchanged.text)")
            var bytes = Data()
            for suffix in ["", "-wal"] { bytes += (try? Data(contentsOf: URL(fileURLWithPath: path + suffix))) ?? Data() }
            #expect(bytes.range(of: Data("Grace Hopper".utf8)) != nil, "the file read is the server's database")
            let plain = issued.code.replacingOccurrences(of: "-", with: "")
            for secret in [issued.code, plain, String(plain.dropFirst(RecoveryCode.idLength)), token, String(token.dropFirst(SessionToken.recoveryPrefix.count))] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is in the database file")
            }
        }
    }
}
