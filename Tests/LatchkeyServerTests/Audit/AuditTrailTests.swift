import Foundation
import HTTPTypes
import Testing
@testable import LatchkeyServer

/// The audit trail in process (`AuditTrail`, `AuditEvent`): routine events a signed-in caller causes
/// with every call are written at most `routinePerHour` times an hour per account (review 4, S4-14),
/// and a capped event is not queued for webhooks either, while a change is always written; the trail is
/// in the order things happened and pages through it without gaps or repeats; a person's history is
/// their own events, with the device and passkey they came from.
@Suite("The audit trail, in process")
struct AuditTrailTests {
    static func count(_ api: APIClient, key: String, account: String, _ kind: AuditEvent.Kind) async throws -> Int {
        try await api.auditTrail(key: key, account: account, query: "event=\(kind.rawValue)", limit: 500).count
    }

    @Test("access tokens past 20 an hour are issued but not written; a change always is; the next hour writes again; another account is not affected")
    func routineCap() async throws {
        let limit = try #require(AuditEvent.Kind.accessTokenIssued.routinePerHour)
        #expect(limit == 20, "the cap of refused logins (S4-14)")
        let clock = TestClock()
        try await TestServer.withApplication(TestServer.configuration { $0.accessTokens = true }, now: { clock.now }) { api, application in
            let key = try await OIDCClientFactsTests.adminKey(application.store, scope: .read)
            let ada = try await api.signUp("Ada")
            let grace = try await api.signUp("Grace")
            for _ in 0..<(limit + 5) {
                let reply = try await api.send(.post, "/api/token", token: ada.token)
                #expect(reply.status == .ok && reply.json?["access_token"] != nil, "issued past the cap too: \(reply.text)")
            }
            #expect(try await Self.count(api, key: key, account: ada.accountId, .accessTokenIssued) == limit)
            #expect(try await api.send(.post, "/api/token", token: grace.token).status == .ok)
            #expect(try await Self.count(api, key: key, account: grace.accountId, .accessTokenIssued) == 1)

            let passkey = try #require(try await api.send(.get, "/api/account/passkeys", token: ada.token).array?.first?["id"] as? String)
            for n in 0..<(limit + 2) {
                let renamed = try await api.send(.patch, "/api/account/passkeys/\(passkey)", object: ["name": "Phone \(n)"], token: ada.token)
                #expect(renamed.status == .ok, "\(renamed.text)")
            }
            #expect(try await Self.count(api, key: key, account: ada.accountId, .passkeyRenamed) == limit + 2, "a change is never capped")

            clock.advance(by: 3601)
            #expect(try await api.send(.post, "/api/token", token: ada.token).status == .ok)
            #expect(try await Self.count(api, key: key, account: ada.accountId, .accessTokenIssued) == limit + 1, "a new hour")
        }
    }

    @Test("a capped event is neither written nor queued for webhooks; events of no account are not capped")
    func cappedNotQueued() async throws {
        try await Backends.with("sqlite-memory") { plain in
            let store = Store(connections: plain.connections, webhookEndpoints: ["endpoint"])
            let at = Date()
            for _ in 0..<25 { try await store.record(AuditOrigin.test.event(.accessTokenIssued, at: at, account: "ada")) }
            for _ in 0..<25 { try await store.record(AuditOrigin.test.event(.oidcRefreshRotated, at: at, account: "ada")) }
            for _ in 0..<3 { try await store.record(AuditOrigin.test.event(.accessTokenIssued, at: at, account: nil)) }
            let written = try await store.auditEvents(Store.AuditQuery(limit: 500))
            #expect(written.filter { $0.accountId == "ada" && $0.kind == .accessTokenIssued }.count == 20)
            #expect(written.filter { $0.kind == .oidcRefreshRotated }.count == 20, "each kind has its own cap")
            #expect(written.filter { $0.accountId == nil }.count == 3)
            #expect(try await store.webhookOutbox.pendingCount() == written.count, "exactly the written events are queued")
        }
    }

    @Test("the trail is in the order things happened: newest first, paged by its cursor without gaps or repeats")
    func orderAndPages() async throws {
        try await TestServer.withApplication { api, application in
            let key = try await OIDCClientFactsTests.adminKey(application.store, scope: .read)
            let ada = try await api.signUp()
            let passkey = try #require(try await api.send(.get, "/api/account/passkeys", token: ada.token).array?.first?["id"] as? String)
            for n in 1...7 {
                #expect(try await api.send(.patch, "/api/account/passkeys/\(passkey)", object: ["name": "Name \(n)"], token: ada.token).status == .ok)
            }
            var names: [String] = [], ids: [Int] = [], cursor: String?, pages = 0
            repeat {
                var path = "/api/admin/audit?account=\(ada.accountId)&event=passkey.renamed&limit=3"
                if let cursor { path += "&cursor=\(cursor)" }
                let page = try await api.send(.get, path, token: key)
                let events = try #require(page.json?["events"] as? [[String: Any]], "\(page.text)")
                names += events.compactMap { ($0["detail"] as? [String: Any])?["name"] as? String }
                ids += events.compactMap { ($0["id"] as? String).flatMap(Int.init) }
                cursor = page.json?["next"] as? String
                pages += 1
            } while cursor != nil && pages < 10
            #expect(names == (1...7).reversed().map { "Name \($0)" }, "\(names)")
            #expect(ids == ids.sorted(by: >) && Set(ids).count == 7, "\(ids)")
            #expect(pages == 3)
            let all = try await api.auditTrail(key: key, account: ada.accountId).compactMap { $0["event"] as? String }
            #expect(all.last == "account.created" && all.first == "passkey.renamed", "\(all)")
        }
    }

    @Test("a person's history holds their own events only, with the device and passkey each came from, paged newest first")
    func personsHistory() async throws {
        let iPhone = DeviceApprovalFlowTests.iPhone
        try await TestServer.withApplication { api, application in
            let key = try await OIDCClientFactsTests.adminKey(application.store, scope: .read)
            let ada = try await api.signUp("Ada")
            let grace = try await api.signUp("Grace")
            _ = try await api.signIn(with: grace.authenticator)
            let session = try await api.signIn(with: ada.authenticator, headers: [.userAgent: iPhone])
            let reply = try await api.send(.get, "/api/account/events", token: session.token)
            let events = try #require(reply.json?["events"] as? [[String: Any]], "\(reply.text)")
            let hers = try await api.auditTrail(key: key, account: ada.accountId).compactMap { $0["id"] as? String }
            #expect(events.compactMap { $0["id"] as? String } == hers, "Ada's events, all of them, newest first")
            let login = try #require(events.first, "\(events)")
            #expect(login["event"] as? String == "login.succeeded" && login["device"] as? String == "Safari on iPhone", "\(login)")
            let credential = try #require(try ada.authenticator.passkeys().first?.credentialId)
            #expect(login["passkeyId"] as? String == credential && login["byOperator"] as? Bool == false)

            let first = try await api.send(.get, "/api/account/events?limit=2", token: session.token)
            let next = try #require(first.json?["next"] as? String, "\(first.text)")
            let second = try await api.send(.get, "/api/account/events?limit=2&cursor=\(next)", token: session.token)
            let paged = ((first.json?["events"] as? [[String: Any]]) ?? []) + ((second.json?["events"] as? [[String: Any]]) ?? [])
            #expect(paged.compactMap { $0["id"] as? String } == Array(hers.prefix(4)), "\(paged)")
        }
    }
}
