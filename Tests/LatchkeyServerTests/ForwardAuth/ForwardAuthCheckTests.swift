import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import SoftAuthenticator
import Testing
@testable import LatchkeyServer

/// `GET /api/forward-auth` and `GET /api/forward-auth/verdict` through the router, with a clock the test
/// moves: what each proxy is answered, the identity headers, groups, max-age, and how late a logout, a
/// revocation on another instance and a disabled account stop passing (the cache's stated bound, 5 s).
@Suite("Forward authentication: the check")
struct ForwardAuthCheckTests {
    final class Clock: Sendable {
        let box: NIOLockedValueBox<Date>
        init(_ date: Date) { box = NIOLockedValueBox(date) }
        var now: @Sendable () -> Date { { [box] in box.withLockedValue { $0 } } }
        func advance(_ seconds: TimeInterval) { box.withLockedValue { $0 += seconds } }
    }

    static func configuration() -> ServerConfiguration {
        TestServer.configuration {
            $0.cookieDomain = "example.com"
            $0.forwardAuthRules = try! [
                "app.example.com/admin groups=admins", "app.example.com signed-in", "fresh.example.com signed-in max-age=60",
                "*.example.com deny",
            ].map { try ForwardAuthRule(parsing: $0) }
        }
    }

    static let cookieName = SessionCookie.name(secure: true, domain: "example.com")
    static let user = HTTPField.Name("Remote-User")!
    static let groups = HTTPField.Name("Remote-Groups")!
    static let name = HTTPField.Name("Remote-Name")!
    static let email = HTTPField.Name("Remote-Email")!

    static func caddy(_ url: String, cookie token: String? = nil) -> HTTPFields {
        let parts = url.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: false)
        var fields = HTTPFields()
        fields[HTTPField.Name("X-Forwarded-Proto")!] = String(parts[0].dropLast())
        fields[HTTPField.Name("X-Forwarded-Host")!] = String(parts[2])
        fields[HTTPField.Name("X-Forwarded-Uri")!] = parts.count > 3 ? "/" + parts[3] : "/"
        if let token { fields[.cookie] = "other=1; \(cookieName)=\(token)" }
        return fields
    }

    static func nginx(_ url: String, cookie token: String? = nil) -> HTTPFields {
        var fields = HTTPFields()
        fields[HTTPField.Name("X-Original-URL")!] = url
        if let token { fields[.cookie] = "\(cookieName)=\(token)" }
        return fields
    }

    @Test("anonymous: 302 (Caddy, Traefik) or 401 with Location (nginx) to the page with the address; signed in: 200 with who; default deny; 400 without an address on the domain")
    func answers() async throws {
        try await TestServer.withApplication(Self.configuration()) { api, app in
            var reply = try await api.send(.get, "/api/forward-auth", headers: Self.caddy("https://app.example.com/notes?id=1"))
            #expect(reply.status == .found)
            #expect(reply.headers[.location] == "https://example.com/forward-auth?rd=https%3A%2F%2Fapp.example.com%2Fnotes%3Fid%3D1")
            reply = try await api.send(.get, "/api/forward-auth", headers: Self.nginx("https://app.example.com/notes"))
            #expect(reply.status == .unauthorized)
            #expect(reply.headers[.location] == "https://example.com/forward-auth?rd=https%3A%2F%2Fapp.example.com%2Fnotes")

            let session = try await api.register("Ada <Lovelace>", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            reply = try await api.send(.get, "/api/forward-auth", headers: Self.caddy("https://app.example.com/notes", cookie: session.token))
            #expect(reply.status == .ok)
            #expect(reply.headers[Self.user] == session.accountId, "no username: the account id")
            #expect(reply.headers[Self.name] == "Ada <Lovelace>" && reply.headers[Self.email] == "" && reply.headers[Self.groups] == "")
            #expect(reply.headers[.cacheControl] == "no-store")
            // The cookie under another name (the host-only __Host- one) is not this one.
            var fields = Self.caddy("https://app.example.com/", cookie: nil)
            fields[.cookie] = "\(SessionCookie.name(secure: true, domain: nil))=\(session.token)"
            #expect(try await api.send(.get, "/api/forward-auth", headers: fields).status == .found)
            // A bearer token is not what a browser sends: the check reads the cookie only.
            #expect(try await api.send(.get, "/api/forward-auth", token: session.token, headers: Self.caddy("https://app.example.com/")).status == .found)

            // A username and groups show; the admin path needs "admins".
            #expect(try await app.store.changeProfile(
                accountId: session.accountId, [.username("ada"), .email("ada@example.com", verified: true), .groups(["staff"])], at: Date(),
                event: AuditOrigin.test.event(.accountUpdated, at: Date(), account: session.accountId)))
            reply = try await api.send(.get, "/api/forward-auth", headers: Self.nginx("https://app.example.com/admin/users", cookie: session.token))
            #expect(reply.status == .forbidden)
            #expect(reply.text.contains("“admins”") && reply.text.contains("app.example.com"), "\(reply.text)")
            #expect(reply.headers[.location]?.hasPrefix("https://example.com/forward-auth?rd=") == true, "nginx gets Latchkey's page to follow")
            #expect(reply.headers[.contentType] == "text/html; charset=utf-8")
            reply = try await api.send(.get, "/api/forward-auth", headers: Self.caddy("https://app.example.com/%61dmin", cookie: session.token))
            #expect(reply.status == .forbidden, "an escaped path is matched as the app reads it")
            reply = try await api.send(.get, "/api/forward-auth", headers: Self.caddy("https://app.example.com/x/../admin", cookie: session.token))
            #expect(reply.status == .forbidden)
            reply = try await api.send(.get, "/api/forward-auth", headers: Self.caddy("https://wiki.example.com/", cookie: session.token))
            #expect(reply.status == .forbidden && reply.text.contains("Nobody may open wiki.example.com"))

            // No address, or one off the domain: 400, never a redirect.
            for fields in [HTTPFields(), Self.caddy("https://evil.test/"), Self.nginx("https://example.com.evil.test/"), Self.nginx("https://evil.test\\@app.example.com/")] {
                reply = try await api.send(.get, "/api/forward-auth", headers: fields)
                #expect(reply.status == .badRequest && reply.errorCode == "invalid_return_url" && reply.headers[.location] == nil, "\(fields)")
            }
            // A garbage cookie is nobody, not an error.
            #expect(try await api.send(.get, "/api/forward-auth", headers: Self.caddy("https://app.example.com/", cookie: "nonsense")).status == .found)
        }
    }

    @Test("the verdict tells the page where to send the person; a bad rd is 400 and never echoed as a redirect")
    func verdict() async throws {
        try await TestServer.run(Self.configuration()) { api in
            func verdict(_ rd: String, _ token: String? = nil) async throws -> APIClient.Reply {
                var fields = HTTPFields()
                if let token { fields[.cookie] = "\(Self.cookieName)=\(token)" }
                return try await api.send(.get, "/api/forward-auth/verdict?rd=" + ForwardAuthController.queryEncoded(rd), headers: fields)
            }
            var reply = try await verdict("https://app.example.com/notes")
            #expect(reply.status == .ok && reply.json?["verdict"] as? String == "sign-in" && reply.json?["redirect"] == nil)
            let session = try await api.register("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            reply = try await verdict("https://app.example.com/notes#top", session.token)
            #expect(reply.json?["verdict"] as? String == "pass" && reply.json?["redirect"] as? String == "https://app.example.com/notes")
            reply = try await verdict("https://app.example.com/admin", session.token)
            #expect(reply.json?["verdict"] as? String == "refused" && reply.json?["groups"] as? [String] == ["admins"])
            for bad in ["https://evil.test/", "//evil.test", "https://example.com@evil.test", "https:/\\evil.test", "https://evil.test%2F.example.com", "javascript:alert(1)"] {
                reply = try await verdict(bad, session.token)
                #expect(reply.status == .badRequest && reply.errorCode == "invalid_return_url" && !reply.text.contains("evil"), "\(bad): \(reply.text)")
            }
            #expect(try await api.send(.get, "/api/forward-auth/verdict").errorCode == "invalid_return_url")
            #expect(try await api.send(.get, "/api/forward-auth/verdict?rd=https%3A%2F%2Fapp.example.com%2F&rd=https%3A%2F%2Fevil.test").status == .badRequest)
        }
    }

    @Test("a logout here stops passing at once; a session ended elsewhere and a disabled account within the stated 5 s; max-age asks again")
    func bound() async throws {
        let clock = Clock(Date())
        try await TestServer.withApplication(Self.configuration(), now: clock.now) { api, app in
            let ada = try await api.register("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            let url = "https://app.example.com/"
            #expect(try await api.send(.get, "/api/forward-auth", headers: Self.caddy(url, cookie: ada.token)).status == .ok)
            // Logout through this instance: forgotten at once.
            var cookie = HTTPFields()
            cookie[.cookie] = "\(Self.cookieName)=\(ada.token)"
            cookie[.origin] = TestServer.origin
            let logout = try await api.send(.post, "/api/logout", headers: cookie)
            #expect(logout.status == .noContent, "\(logout.text)")
            #expect(logout.headers[.setCookie]?.contains("Domain=example.com") == true)
            #expect(try await api.send(.get, "/api/forward-auth", headers: Self.caddy(url, cookie: ada.token)).status == .found)

            // A session ended behind this instance's back (another instance, an operator): within 5 s.
            let grace = try await api.register("Grace", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            #expect(try await api.send(.get, "/api/forward-auth", headers: Self.caddy(url, cookie: grace.token)).status == .ok)
            try await app.store.deleteSession(tokenHash: SessionToken.hash(of: grace.token), at: Date(), event: nil)
            clock.advance(4.9)
            #expect(try await api.send(.get, "/api/forward-auth", headers: Self.caddy(url, cookie: grace.token)).status == .ok, "still cached")
            clock.advance(0.2)
            #expect(try await api.send(.get, "/api/forward-auth", headers: Self.caddy(url, cookie: grace.token)).status == .found, "past 5 s")

            // A disabled account, the same.
            let alan = try await api.register("Alan", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            #expect(try await api.send(.get, "/api/forward-auth", headers: Self.caddy(url, cookie: alan.token)).status == .ok)
            let at = clock.now()
            #expect(try await app.store.adminAccounts.setDisabled(id: alan.accountId, at: at, now: at, event: { _ in
                AuditOrigin.test.event(.accountDisabled, at: at, account: alan.accountId) }))
            clock.advance(5.1)
            #expect(try await api.send(.get, "/api/forward-auth", headers: Self.caddy(url, cookie: alan.token)).status == .found)

            // max-age=60: a minute after the passkey, asked again.
            let fresh = "https://fresh.example.com/"
            let mary = try await api.register("Mary", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            #expect(try await api.send(.get, "/api/forward-auth", headers: Self.caddy(fresh, cookie: mary.token)).status == .ok)
            clock.advance(61)
            let again = try await api.send(.get, "/api/forward-auth", headers: Self.caddy(fresh, cookie: mary.token))
            #expect(again.status == .found)
            #expect(try await api.send(.get, "/api/forward-auth", headers: Self.caddy(url, cookie: mary.token)).status == .ok, "other hosts need no fresh passkey")
            var fields = HTTPFields()
            fields[.cookie] = "\(Self.cookieName)=\(mary.token)"
            let verdict = try await api.send(.get, "/api/forward-auth/verdict?rd=https%3A%2F%2Ffresh.example.com%2F", headers: fields)
            #expect(verdict.json?["verdict"] as? String == "fresh-sign-in")
        }
    }

    @Test("the session cookie carries Domain= and the __Secure- prefix with --cookie-domain, and the page's own API reads it")
    func cookie() async throws {
        try await TestServer.run(Self.configuration()) { api in
            let options = try api.creationOptions(try await api.send(.post, "/api/registration/options", object: ["displayName": "Ada"]))
            let credential = try SoftAuthenticator(store: InMemoryCredentialStore()).makeCredential(options, origin: TestServer.origin)
            let reply = try await api.send(.post, "/api/registration/verify", json: ["credential": credential])
            let setCookie = try #require(reply.headers[.setCookie])
            #expect(setCookie.hasPrefix("__Secure-latchkey_session=") && setCookie.contains("; Domain=example.com;") && setCookie.contains("Secure"))
            let token = try #require(reply.json?["token"] as? String)
            var fields = HTTPFields()
            fields[.cookie] = "__Secure-latchkey_session=\(token)"
            #expect(try await api.send(.get, "/api/account", headers: fields).status == .ok)
        }
    }
}
