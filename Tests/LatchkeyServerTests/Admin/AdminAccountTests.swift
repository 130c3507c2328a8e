import Foundation
import Testing
@testable import LatchkeyServer

/// What an operator does to an account through the admin API, in process (`AdminService`), as
/// Tests/System/Admin/test_operator_journey.py does against the binary: find it, see its passkeys and
/// sessions, end the sessions, disable and enable it, remove a passkey, delete it — each change in the
/// audit trail with the key as its actor, readable through the API, and shown in the person's own
/// history as the operator's, without the key or the operator's address.
@Suite("The admin API on accounts, in process")
struct AdminAccountTests {
    static func detail(_ api: APIClient, _ id: String, key: String) async throws -> [String: Any] {
        let reply = try await api.send(.get, "/api/admin/accounts/\(id)", token: key)
        try #require(reply.status == .ok, "\(reply.text)")
        return try #require(reply.json)
    }

    @Test("find, end the sessions, disable, enable, delete: each takes effect at once and is audited with the key as actor")
    func operatorJourney() async throws {
        try await TestServer.withApplication { api, application in
            let ada = try await api.signUp("Ada Lovelace")
            let grace = try await api.signUp("Grace Hopper")
            let second = try await api.signIn(with: ada.authenticator)
            let read = try await OIDCClientFactsTests.adminKey(application.store, scope: .read)
            let write = try await OIDCClientFactsTests.adminKey(application.store, scope: .write)
            let actor = "admin:" + (try #require(AdminKeySecret.id(of: write)))

            let found = try await api.send(.get, "/api/admin/accounts?q=LOVELACE", token: read)
            let accounts = try #require(found.json?["accounts"] as? [[String: Any]], "\(found.text)")
            #expect(accounts.map { $0["id"] as? String } == [ada.accountId])
            #expect(accounts.first?["passkeys"] as? Int == 1 && accounts.first?["sessions"] as? Int == 2, "\(accounts)")
            let short = try await api.send(.get, "/api/admin/accounts?q=lo", token: read)
            #expect(short.status == .badRequest && short.errorCode == "invalid_parameter", "found by trigrams: \(short.text)")
            let shown = try await Self.detail(api, ada.accountId, key: read)
            #expect((shown["passkeys"] as? [Any])?.count == 1 && (shown["sessions"] as? [[String: Any]])?.count == 2, "\(shown)")
            #expect(!String(describing: shown).contains(ada.token), "a session is shown by its sid, never its token")

            let ended = try await api.send(.delete, "/api/admin/accounts/\(ada.accountId)/sessions", token: write)
            #expect(ended.status == .ok && ended.json?["ended"] as? Int == 2, "\(ended.text)")
            for token in [ada.token, second.token] { #expect(try await api.send(.get, "/api/account", token: token).status == .unauthorized) }
            #expect(try await api.send(.get, "/api/account", token: grace.token).status == .ok, "another account's session stays")

            let disabled = try await api.send(.post, "/api/admin/accounts/\(ada.accountId)/disable", token: write)
            #expect(((disabled.json?["account"] as? [String: Any])?["disabledAt"] as? String) != nil, "\(disabled.text)")
            let refused = try await api.login(with: ada.authenticator)
            #expect(refused.status == .forbidden && refused.errorCode == "account_disabled", "\(refused.text)")
            let enabled = try await api.send(.post, "/api/admin/accounts/\(ada.accountId)/enable", token: write)
            #expect((enabled.json?["account"] as? [String: Any])?["disabledAt"] is NSNull, "\(enabled.text)")
            let back = try await api.signIn(with: ada.authenticator)

            let trail = try await api.auditTrail(key: read, account: ada.accountId)
            let ids = trail.compactMap { ($0["id"] as? String).flatMap(Int.init) }
            #expect(ids == ids.sorted(by: >) && ids.count == trail.count, "newest first: \(ids)")
            let byKey = trail.filter { $0["actor"] as? String == actor }.compactMap { $0["event"] as? String }
            #expect(byKey == ["account.enabled", "account.disabled", "sessions.revoked"], "\(byKey)")
            let revoked = try #require(trail.first { $0["event"] as? String == "sessions.revoked" })
            #expect((revoked["detail"] as? [String: Any])?["sessions"] as? Int == 2)
            let refusals = try await api.auditTrail(key: read, account: ada.accountId, query: "event=login.refused")
            #expect(refusals.map { ($0["detail"] as? [String: Any])?["code"] as? String } == ["account_disabled"], "\(refusals)")
            #expect(!(try await api.send(.get, "/api/admin/audit", token: read).text.contains(write)), "no key in the trail")

            // The person's own history: the operator's actions as such, without the operator's address or key.
            let mine = try await api.send(.get, "/api/account/events", token: back.token)
            let events = try #require(mine.json?["events"] as? [[String: Any]], "\(mine.text)")
            let operators = events.filter { $0["byOperator"] as? Bool == true }
            #expect(Set(operators.compactMap { $0["event"] as? String }) == ["account.enabled", "account.disabled", "sessions.revoked"], "\(operators)")
            #expect(operators.allSatisfy { $0["clientAddress"] is NSNull && $0["device"] is NSNull }, "\(operators)")
            #expect(!mine.text.contains("admin:"), "\(mine.text)")

            #expect(try await api.send(.delete, "/api/admin/accounts/\(ada.accountId)", token: write).status == .noContent)
            let gone = try await api.send(.get, "/api/admin/accounts/\(ada.accountId)", token: read)
            #expect(gone.status == .notFound && gone.errorCode == "unknown_account")
            #expect(try await api.send(.get, "/api/account", token: back.token).status == .unauthorized)
            let deleted = try await api.auditTrail(key: read, query: "event=account.deleted")
            #expect(deleted.map { $0["accountId"] as? String } == [ada.accountId] && deleted.first?["actor"] as? String == actor)
            #expect(try await api.send(.delete, "/api/admin/accounts/\(ada.accountId)", token: write).errorCode == "unknown_account")
        }
    }

    @Test("an operator removes a passkey, the account's last one only with allowLast, and the sessions it opened end")
    func removePasskey() async throws {
        try await TestServer.withApplication { api, application in
            let ada = try await api.signUp()
            let write = try await OIDCClientFactsTests.adminKey(application.store, scope: .write)
            let passkeys = try #require(try await Self.detail(api, ada.accountId, key: write)["passkeys"] as? [[String: Any]])
            let id = try #require(passkeys.first?["id"] as? String)
            let last = try await api.send(.delete, "/api/admin/passkeys/\(id)", token: write)
            #expect(last.status == .conflict && last.errorCode == "last_passkey", "\(last.text)")
            #expect(try await api.send(.get, "/api/account", token: ada.token).status == .ok, "nothing removed")
            #expect(try await api.send(.delete, "/api/admin/passkeys/\(id)?allowLast=true", token: write).status == .noContent)
            #expect(try await api.send(.get, "/api/account", token: ada.token).status == .unauthorized, "the session it opened ended")
            #expect(try await api.login(with: ada.authenticator).status.code >= 400, "the passkey is gone")
            #expect(try await api.send(.delete, "/api/admin/passkeys/\(id)?allowLast=true", token: write).errorCode == "unknown_passkey")
            let trail = try await api.auditTrail(key: write, account: ada.accountId, query: "event=passkey.removed")
            #expect(trail.count == 1 && trail.first?["passkeyId"] as? String == id, "\(trail)")
        }
    }
}
