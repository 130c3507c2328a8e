import Foundation
import HTTPTypes
import Testing
@testable import LatchkeyServer

/// The admin API's one gate in process (`AdminKeyMiddleware` before `AdminService`), tried on every
/// `/api/admin` route the API document lists, so that a route added later is tried too: without a live
/// key a request is 401 `admin_key_invalid` with a Bearer challenge; with a key whose scope does not
/// cover the call, 403 `insufficient_scope`. Any key reads; changes need a write key, except recovery
/// grants, which need a recovery key (Tests/System/Admin/test_operator_journey.py, against the binary).
@Suite("The admin API's gate, in process")
struct AdminKeyGateTests {
    static func adminRoutes(_ api: APIClient) async throws -> [(method: HTTPRequest.Method, path: String, template: String)] {
        let routes = try await api.documentedRoutes().filter { $0.template.hasPrefix("/api/admin/") }
        #expect(routes.count >= 20, "the document lists the admin routes: \(routes.map(\.template))")
        return routes
    }

    static func body(_ method: HTTPRequest.Method) -> Data? {
        method == .get ? nil : Data("{}".utf8)
    }

    @Test("every admin route refuses a request without a live key — none, revoked, unknown, not a bearer token — with 401 admin_key_invalid and a Bearer challenge")
    func noLiveKey() async throws {
        try await TestServer.withApplication { api, application in
            let person = try await api.signUp()
            let write = try await OIDCClientFactsTests.adminKey(application.store, scope: .write)
            let revoked = try await OIDCClientFactsTests.adminKey(application.store, scope: .write)
            let revokedId = try #require(AdminKeySecret.id(of: revoked))
            #expect(try await api.send(.delete, "/api/admin/keys/\(revokedId)", token: write).status == .noContent)
            let unknown = "lk_admin_akaaaaaaaaaa_" + String(repeating: "A", count: 43)
            let presented: [HTTPFields] = [
                [:], [.authorization: "Bearer \(revoked)"], [.authorization: "Bearer \(unknown)"], [.authorization: write],
                [.authorization: "Basic \(write)"],
            ]
            for route in try await Self.adminRoutes(api).map({ ($0.method, $0.path.replacingOccurrences(of: "AAAA", with: person.accountId)) }) {
                for headers in presented {
                    let reply = try await api.send(route.0, route.1, body: Self.body(route.0), headers: headers)
                    #expect(reply.status == .unauthorized && reply.errorCode == "admin_key_invalid", "\(route) \(headers): \(reply.text)")
                    #expect(reply.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true, "\(route)")
                }
            }
            let account = try await api.send(.get, "/api/admin/accounts/\(person.accountId)", token: write)
            #expect((account.json?["account"] as? [String: Any])?["disabledAt"] is NSNull, "nothing was changed: \(account.text)")
            #expect(try await api.send(.get, "/api/account", token: person.token).status == .ok)
        }
    }

    @Test("any key reads; only a write key changes accounts, passkeys, clients and keys; only a recovery key issues or revokes recovery grants")
    func scopes() async throws {
        try await TestServer.withApplication { api, application in
            var keys: [AdminKeyRecord.Scope: String] = [:]
            for scope in AdminKeyRecord.Scope.allCases { keys[scope] = try await OIDCClientFactsTests.adminKey(application.store, scope: scope) }
            for route in try await Self.adminRoutes(api) {
                let needed: AdminKeyRecord.Scope? = route.method == .get ? nil : route.template.contains("recovery") ? .recovery : .write
                for (scope, key) in keys {
                    let reply = try await api.send(route.method, route.path, body: Self.body(route.method), token: key)
                    if let needed, needed != scope {
                        #expect(reply.status == .forbidden && reply.errorCode == "insufficient_scope", "\(scope) key, \(route.method) \(route.template): \(reply.text)")
                    } else {
                        // Through the gate: the handler's own answer (404 for the placeholder id, 400 for the empty body, …).
                        #expect(reply.status != .unauthorized && reply.errorCode != "insufficient_scope", "\(scope) key, \(route.method) \(route.template): \(reply.text)")
                    }
                }
            }
        }
    }

    @Test("a key makes keys of its own scope or less; the one it made works until it is revoked, and the trail names both, never a secret")
    func keysMakeKeys() async throws {
        try await TestServer.withApplication { api, application in
            let write = try await OIDCClientFactsTests.adminKey(application.store, scope: .write)
            let writeId = try #require(AdminKeySecret.id(of: write))
            let escalation = try await api.send(.post, "/api/admin/keys", object: ["scope": "recovery", "name": "more"], token: write)
            #expect(escalation.status == .forbidden && escalation.errorCode == "insufficient_scope", "\(escalation.text)")
            let made = try await api.send(.post, "/api/admin/keys", object: ["scope": "read", "name": "reader"], token: write)
            try #require(made.status == .created, "\(made.text)")
            let secret = try #require(made.json?["secret"] as? String)
            let key = try #require(made.json?["key"] as? [String: Any])
            let id = try #require(key["id"] as? String)
            #expect(secret.hasPrefix("lk_admin_\(id)_") && key["createdBy"] as? String == "admin:\(writeId)", "\(made.text)")

            #expect(try await api.send(.get, "/api/admin/accounts", token: secret).status == .ok)
            #expect(try await api.send(.post, "/api/admin/keys", object: ["scope": "read", "name": "x"], token: secret).errorCode == "insufficient_scope")
            let listed = try await api.send(.get, "/api/admin/keys", token: secret)
            #expect(listed.array?.count == 2 && !listed.text.contains(secret) && !listed.text.contains(String(write.suffix(43))), "\(listed.text)")

            #expect(try await api.send(.delete, "/api/admin/keys/\(id)", token: write).status == .noContent)
            #expect(try await api.send(.get, "/api/admin/accounts", token: secret).errorCode == "admin_key_invalid")
            #expect(try await api.send(.delete, "/api/admin/keys/\(id)", token: write).errorCode == "unknown_admin_key", "revoked once")

            let trail = try await api.auditTrail(key: write)
            let created = try #require(trail.first { $0["event"] as? String == "admin_key.created" && $0["actor"] as? String == "admin:\(writeId)" })
            #expect((created["detail"] as? [String: Any])?["keyId"] as? String == id)
            #expect(trail.contains { $0["event"] as? String == "admin_key.revoked" && ($0["detail"] as? [String: Any])?["keyId"] as? String == id })
            let text = try await api.send(.get, "/api/admin/audit", token: write).text
            #expect(!text.contains(secret) && !text.contains(write))
        }
    }
}
