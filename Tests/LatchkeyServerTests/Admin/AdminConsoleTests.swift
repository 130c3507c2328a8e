import Foundation
import HTTPTypes
import LatchkeyDatabase
import SoftAuthenticator
import Testing
@testable import LatchkeyServer

/// The admin console in process (issue 45): who is an administrator (the role, granted and revoked through
/// the admin API and audited), the first administrator's setup link (single use, short-lived, only its
/// SHA-256 stored), the console's own session (never an ordinary session's bearer or cookie, and the other
/// way round), and the step-up: a change with the console's cookie needs a user-verified assertion of the
/// last five minutes and the console's own origin (Tests/System/Browser/test_admin_console.py, in Chromium).
@Suite("The admin console, in process")
struct AdminConsoleTests {
    static let cookieName = ConsoleCookie.name(secure: true)

    /// The console's assertion with `authenticator`'s passkey; `cookie` the console token presented (a step-up).
    static func consoleVerify(
        _ api: APIClient, _ authenticator: SoftAuthenticator, setupCode: String? = nil, cookie: String? = nil,
        origin: String? = TestServer.origin
    ) async throws -> APIClient.Reply {
        var headers: HTTPFields = [:]
        if let origin { headers[.origin] = origin }
        if let cookie { headers[.cookie] = "\(cookieName)=\(cookie)" }
        let options = try api.requestOptions(try await api.send(.post, "/admin/api/session/options", headers: headers))
        #expect(options.userVerification == "required" && (options.allowCredentials ?? []).isEmpty)
        let credential = try authenticator.getAssertion(options, origin: TestServer.origin)
        var body: [String: Any] = ["credential": try JSONSerialization.jsonObject(with: JSONEncoder().encode(credential))]
        if let setupCode { body["setupCode"] = setupCode }
        return try await api.send(.post, "/admin/api/session/verify", body: try JSONSerialization.data(withJSONObject: body), headers: headers)
    }

    /// The console token a reply's `Set-Cookie` carries.
    static func consoleToken(_ reply: APIClient.Reply) throws -> String {
        let header = try #require(reply.headers[.setCookie], "no cookie: \(reply.text)")
        #expect(header.contains("HttpOnly") && header.contains("SameSite=Strict") && header.contains("Max-Age=3600") && header.contains("Secure"))
        let pair = try #require(header.split(separator: ";").first)
        #expect(pair.hasPrefix(cookieName + "="))
        return String(pair.dropFirst(cookieName.count + 1))
    }

    /// A request with the console's cookie (and, for a change, the console's origin).
    static func withConsole(
        _ api: APIClient, _ method: HTTPRequest.Method, _ path: String, token: String, origin: String? = TestServer.origin, body: Data? = nil
    ) async throws -> APIClient.Reply {
        var headers: HTTPFields = [.cookie: "\(cookieName)=\(token)"]
        if let origin { headers[.origin] = origin }
        return try await api.send(method, path, body: body, headers: headers)
    }

    /// An administrator signed in to the console: the account, its passkey, and the console token.
    static func signedInAdmin(
        _ api: APIClient, _ store: Store, scopes: AdminScopes = .all, name: String = "Grace Hopper"
    ) async throws -> (person: SignedUp, token: String) {
        let person = try await api.signUp(name)
        let role = AdminRole(accountId: person.accountId, scopes: scopes, grantedAt: Date(), grantedBy: "test")
        #expect(try await store.adminRoles.grant(role, event: AuditOrigin.test.event(.adminGranted, at: Date(), account: person.accountId)))
        let reply = try await consoleVerify(api, person.authenticator)
        try #require(reply.status == .ok, "\(reply.text)")
        return (person, try consoleToken(reply))
    }

    @Test("the admin role through the admin API: granted with scopes no wider than the caller's, listed, revoked, each audited as the caller")
    func roleThroughTheAPI() async throws {
        try await TestServer.withApplication { api, application in
            let person = try await api.signUp()
            let write = try await OIDCClientFactsTests.adminKey(application.store, scope: .write)
            let writeId = try #require(AdminKeySecret.id(of: write))
            let path = "/api/admin/accounts/\(person.accountId)/admin"

            let wider = try await api.send(.put, path, object: ["scopes": ["write", "recovery"]], token: write)
            #expect(wider.status == .forbidden && wider.errorCode == "insufficient_scope", "\(wider.text)")
            let unknown = try await api.send(.put, path, object: ["scopes": ["root"]], token: write)
            #expect(unknown.errorCode == "invalid_field", "\(unknown.text)")
            let nobody = try await api.send(.put, "/api/admin/accounts/nobody/admin", object: ["scopes": ["read"]], token: write)
            #expect(nobody.errorCode == "unknown_account", "\(nobody.text)")

            let granted = try await api.send(.put, path, object: ["scopes": ["write"]], token: write)
            #expect(granted.status == .ok && granted.json?["scopes"] as? [String] == ["write"], "\(granted.text)")
            #expect(granted.json?["grantedBy"] as? String == "admin:\(writeId)")
            let listed = try await api.send(.get, "/api/admin/admins", token: write)
            #expect(listed.array?.map { $0["accountId"] as? String } == [person.accountId], "\(listed.text)")

            #expect(try await api.send(.delete, path, token: write).status == .noContent)
            #expect(try await api.send(.delete, path, token: write).errorCode == "unknown_account", "revoked once")
            #expect(try await api.send(.get, "/api/admin/admins", token: write).array?.isEmpty == true)

            let trail = try await api.auditTrail(key: write, account: person.accountId)
            #expect(trail.contains { $0["event"] as? String == "admin.granted" && $0["actor"] as? String == "admin:\(writeId)" })
            #expect(trail.contains { $0["event"] as? String == "admin.revoked" && $0["actor"] as? String == "admin:\(writeId)" })
        }
    }

    @Test("the setup link: made only while there is no administrator, only its SHA-256 stored, used once, refused when expired or mistyped")
    func setupLink() async throws {
        try await TestServer.withApplication { api, application in
            let store = application.store
            let first = try await api.signUp("First Admin")
            // An hour and a minute ago: expired when it is used.
            // (Made before #require: the macro would evaluate a call inside it twice.)
            let madeExpired = try await AdminSetupLink(store: store, now: { Date() - 3660 }).make()
            let expired = try #require(madeExpired)
            let link = AdminSetupLink(store: store, now: { Date() })
            let made = try await link.make()
            let code = try #require(made)
            #expect(code.count == AdminSetupLink.codeLength && code != expired)

            let stored = try await store.connections.withConnection { db in
                try await db.all(StoreQuery(StoreStatement("SELECT secret_hash FROM admin_setup_links"))).map {
                    Array(try $0.decode(column: "secret_hash", as: Data.self))
                }
            }
            #expect(stored.contains(SecretDigest.of(code)), "the digest is stored")
            let rows = try await store.connections.withConnection { db in
                try await db.all(StoreQuery(StoreStatement("SELECT * FROM admin_setup_links")))
            }
            for row in rows {
                for column in row.allColumns {
                    let text = (try? row.decode(column: column, as: String.self)) ?? ""
                    #expect(!text.contains(code), "the code itself is stored nowhere")
                }
            }


            let other = try await api.signUp("Second Person")
            let mistyped = try await Self.consoleVerify(api, other.authenticator, setupCode: String(code.dropLast()) + (code.hasSuffix("A") ? "B" : "A"))
            #expect(mistyped.status == .unauthorized && mistyped.errorCode == "setup_link_invalid", "\(mistyped.text)")
            let late = try await Self.consoleVerify(api, other.authenticator, setupCode: expired)
            #expect(late.errorCode == "setup_link_invalid", "expired: \(late.text)")
            #expect(try await store.adminRoles.any() == false, "a wrong code spends nothing and grants nothing")

            let used = try await Self.consoleVerify(api, first.authenticator, setupCode: code)
            #expect(used.status == .ok, "\(used.text)")
            #expect(used.json?["scopes"] as? [String] == ["write", "recovery"] && used.json?["accountId"] as? String == first.accountId)
            _ = try Self.consoleToken(used)

            let again = try await Self.consoleVerify(api, other.authenticator, setupCode: code)
            #expect(again.errorCode == "setup_link_invalid", "single use: \(again.text)")
            #expect(try await store.adminRoles.role(accountId: other.accountId) == nil)
            let none = try await link.make()
            #expect(none == nil, "no new link once an administrator exists")
            let admins = try await store.adminRoles.all()
            #expect(admins.count == 1 && admins.first?.grantedBy == "setup")
        }
    }

    @Test("the console's session is not an ordinary session, and an ordinary session is not the console's")
    func sessionsAreSeparate() async throws {
        try await TestServer.withApplication { api, application in
            let (admin, console) = try await Self.signedInAdmin(api, application.store)
            #expect(console.hasPrefix(ConsoleSession.tokenPrefix))
            // The console's token as an ordinary bearer token, and its cookie on an ordinary route.
            #expect(try await api.send(.get, "/api/account", token: console).status == .unauthorized)
            let asCookie = try await Self.withConsole(api, .get, "/api/account", token: console)
            #expect(asCookie.status == .unauthorized, "\(asCookie.text)")
            let renamed = try await Self.withConsole(api, .patch, "/api/account", token: console, body: Data(#"{"displayName":"x"}"#.utf8))
            #expect(renamed.status == .unauthorized, "\(renamed.text)")
            // The ordinary session on the admin API: as a bearer token, and as its cookie.
            #expect(try await api.send(.get, "/api/admin/accounts", token: admin.token).errorCode == "admin_key_invalid")
            let sessionCookie = SessionCookie.name(secure: true, domain: nil)
            let ordinary = try await api.send(.get, "/api/admin/accounts", headers: [.cookie: "\(sessionCookie)=\(admin.token)"])
            #expect(ordinary.errorCode == "admin_key_invalid", "\(ordinary.text)")
            #expect(try await api.send(.get, "/admin/api/session", headers: [.cookie: "\(sessionCookie)=\(admin.token)"]).status == .unauthorized)
            // The console's own: reads the admin API, and says what it is.
            #expect(try await Self.withConsole(api, .get, "/api/admin/accounts", token: console).status == .ok)
            let session = try await Self.withConsole(api, .get, "/admin/api/session", token: console)
            #expect(session.json?["amr"] as? [String] == ["hwk", "user"] && session.json?["accountId"] as? String == admin.accountId, "\(session.text)")
            // Signed out: gone.
            #expect(try await Self.withConsole(api, .delete, "/admin/api/session", token: console).status == .noContent)
            let ended = try await Self.withConsole(api, .get, "/api/admin/accounts", token: console)
            #expect(ended.errorCode == "admin_key_invalid" && ended.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true, "\(ended.text)")
        }
    }

    @Test("a change with the console's cookie needs the console's origin and a fresh assertion; the cookie alone reads but changes nothing")
    func stepUp() async throws {
        let clock = TestClock()
        try await TestServer.withApplication(now: { clock.now }) { api, application in
            let (admin, console) = try await Self.signedInAdmin(api, application.store)
            let person = try await api.signUp("Target Person")
            let disable = "/api/admin/accounts/\(person.accountId)/disable"
            let enable = "/api/admin/accounts/\(person.accountId)/enable"

            let noOrigin = try await Self.withConsole(api, .post, disable, token: console, origin: nil)
            #expect(noOrigin.status == .forbidden && noOrigin.errorCode == "origin_required", "\(noOrigin.text)")
            let elsewhere = try await Self.withConsole(api, .post, disable, token: console, origin: "https://evil.example")
            #expect(elsewhere.errorCode == "origin_not_allowed", "\(elsewhere.text)")

            // Just signed in: fresh.
            #expect(try await Self.withConsole(api, .post, disable, token: console).status == .ok)
            #expect(try await api.send(.get, "/api/account", token: person.token).status == .unauthorized, "the person's session ended at once")

            clock.advance(by: ConsoleSession.stepUpWindow + 1)
            let stale = try await Self.withConsole(api, .post, enable, token: console)
            #expect(stale.status == .forbidden && stale.errorCode == "step_up_required", "\(stale.text)")
            #expect(try await Self.withConsole(api, .get, "/api/admin/accounts/\(person.accountId)", token: console).status == .ok, "reading needs no step-up")
            let account = try await Self.withConsole(api, .get, "/api/admin/accounts/\(person.accountId)", token: console)
            #expect(!((account.json?["account"] as? [String: Any])?["disabledAt"] is NSNull), "still disabled")

            // The step-up: the same account's assertion with the cookie refreshes the session, no new cookie.
            let other = try await api.signUp("Not The Admin")
            let wrongAccount = try await Self.consoleVerify(api, other.authenticator, cookie: console)
            #expect(wrongAccount.errorCode == "not_admin", "\(wrongAccount.text)")
            let stepped = try await Self.consoleVerify(api, admin.authenticator, cookie: console)
            #expect(stepped.status == .ok && stepped.headers[.setCookie] == nil, "\(stepped.text)")
            #expect(try await Self.withConsole(api, .post, enable, token: console).status == .ok)

            let trail = try await api.auditTrail(key: try await OIDCClientFactsTests.adminKey(application.store, scope: .read), account: person.accountId)
            #expect(trail.contains { $0["event"] as? String == "account.disabled" && $0["actor"] as? String == "admin:account:\(admin.accountId)" })
            #expect(trail.contains { $0["event"] as? String == "account.enabled" && $0["actor"] as? String == "admin:account:\(admin.accountId)" })

            // An hour on, the session is over.
            clock.advance(by: ConsoleSession.lifetime)
            #expect(try await Self.withConsole(api, .get, "/api/admin/accounts", token: console).errorCode == "admin_key_invalid")
        }
    }

    @Test("a non-administrator's passkey opens no console session; a read administrator changes nothing; a revoked one's session ends")
    func whoGetsIn() async throws {
        try await TestServer.withApplication { api, application in
            let stranger = try await api.signUp("Stranger")
            let refused = try await Self.consoleVerify(api, stranger.authenticator)
            #expect(refused.status == .forbidden && refused.errorCode == "not_admin" && refused.headers[.setCookie] == nil, "\(refused.text)")

            let (reader, console) = try await Self.signedInAdmin(api, application.store, scopes: AdminScopes([.read]), name: "Reader")
            let change = try await Self.withConsole(api, .post, "/api/admin/accounts/\(stranger.accountId)/disable", token: console)
            #expect(change.status == .forbidden && change.errorCode == "insufficient_scope", "\(change.text)")
            let recovery = try await Self.withConsole(api, .post, "/api/admin/accounts/\(stranger.accountId)/recovery", token: console)
            #expect(recovery.errorCode == "insufficient_scope", "\(recovery.text)")

            let write = try await OIDCClientFactsTests.adminKey(application.store, scope: .write)
            #expect(try await api.send(.delete, "/api/admin/accounts/\(reader.accountId)/admin", token: write).status == .noContent)
            #expect(try await Self.withConsole(api, .get, "/api/admin/accounts", token: console).errorCode == "admin_key_invalid")
        }
    }

    @Test("the console's page: the strict policy, no framing, revalidated every time")
    func page() async throws {
        try await TestServer.run { api in
            for path in ["/admin", "/admin/setup"] {
                let reply = try await api.send(.get, path)
                #expect(reply.status == .ok && reply.text.contains("admin.js"))
                let policy = reply.headers[.contentSecurityPolicy] ?? ""
                #expect(policy.contains("script-src 'self'") && policy.contains("frame-ancestors 'none'") && !policy.contains("unsafe-inline"))
                #expect(reply.headers[.cacheControl] == "no-cache")
                #expect(!reply.text.contains("<script>"), "no inline script")
            }
            #expect(try await api.send(.get, "/admin/assets/admin.js").status == .ok)
        }
    }
}

