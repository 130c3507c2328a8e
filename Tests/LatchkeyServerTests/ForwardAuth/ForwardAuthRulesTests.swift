import Foundation
import Testing
@testable import LatchkeyServer

/// The parts of forward authentication that need no server: the rules, the return-URL check that keeps
/// the sign-in page from being an open redirector, the path a prefix is matched on, the cache's bounds and
/// the settings' checks.
@Suite("Forward authentication: rules, return URLs, cache, settings")
struct ForwardAuthRulesTests {
    @Test("rules parse HOST[/PATH] POLICY [max-age=N] and refuse anything else in a sentence")
    func parsing() throws {
        let rule = try ForwardAuthRule(parsing: "*.Example.com/admin/ groups=admins|ops max-age=300")
        #expect(rule.host == "*.example.com" && rule.pathPrefix == "/admin" && rule.policy == .groups(["admins", "ops"]) && rule.maxAge == 300)
        #expect(rule.description == "*.example.com/admin groups=admins|ops max-age=300")
        #expect(try ForwardAuthRule(parsing: "grafana.example.com signed-in").policy == .signedIn)
        #expect(try ForwardAuthRule(parsing: "* deny").policy == .deny)
        #expect(try ForwardAuthRule(parsing: "app.example.com/ signed-in").pathPrefix == nil)
        for bad in [
            "", "example.com", "example.com maybe", "exa_mple.com signed-in", "*example.com signed-in", "a.*.com signed-in",
            "example.com/a?b signed-in", "example.com/a/../b signed-in", "example.com/%61 signed-in", "example.com groups=",
            "example.com groups=a||b", "example.com groups=a,b", "example.com groups=a|b c", "example.com deny max-age=5", "example.com signed-in max-age=0", "example.com signed-in ttl=5",
            "example.com signed-in max-age=5 extra",
        ] {
            #expect(throws: ServerConfiguration.Invalid.self, "\(bad)") { try ForwardAuthRule(parsing: bad) }
        }
    }

    @Test("the first matching rule decides, whole path segments, wildcards below the domain only; no match is refused")
    func matching() throws {
        let rules = ForwardAuthRules(rules: try [
            "app.example.com/admin groups=admins", "app.example.com signed-in", "*.example.com/private deny", "*.example.com groups=staff",
        ].map { try ForwardAuthRule(parsing: $0) })
        let now = Date()
        let ada = ForwardAuthIdentity(
            accountId: "a", username: "ada", displayName: "Ada", email: nil, groups: ["staff"], authenticatedAt: now, expiresAt: now + 3600)
        #expect(rules.verdict(host: "app.example.com", path: "/", identity: ada, now: now) == .pass)
        #expect(rules.verdict(host: "app.example.com", path: "/administrator", identity: ada, now: now) == .pass)
        #expect(rules.verdict(host: "app.example.com", path: "/admin", identity: ada, now: now) == .refused(groups: ["admins"]))
        #expect(rules.verdict(host: "app.example.com", path: "/admin/users", identity: ada, now: now) == .refused(groups: ["admins"]))
        #expect(rules.verdict(host: "wiki.example.com", path: "/", identity: ada, now: now) == .pass)
        #expect(rules.verdict(host: "a.b.example.com", path: "/x", identity: ada, now: now) == .pass)
        #expect(rules.verdict(host: "wiki.example.com", path: "/private/x", identity: ada, now: now) == .refused(groups: []))
        #expect(rules.verdict(host: "example.com", path: "/", identity: ada, now: now) == .refused(groups: []), "*. is below the domain only")
        #expect(rules.verdict(host: "evilexample.com", path: "/", identity: ada, now: now) == .refused(groups: []))
        #expect(rules.verdict(host: "other.test", path: "/", identity: ada, now: now) == .refused(groups: []), "default deny")
        #expect(rules.verdict(host: "app.example.com", path: "/", identity: nil, now: now) == .signIn(fresh: false))
        #expect(rules.verdict(host: "other.test", path: "/", identity: nil, now: now) == .refused(groups: []))
        let fresh = ForwardAuthRules(rules: [try ForwardAuthRule(parsing: "app.example.com signed-in max-age=60")])
        #expect(fresh.verdict(host: "app.example.com", path: "/", identity: ada, now: now + 60) == .pass)
        #expect(fresh.verdict(host: "app.example.com", path: "/", identity: ada, now: now + 61) == .signIn(fresh: true))
    }

    @Test("the path is matched as the app will read it: escapes decoded, dot segments resolved, slashes merged")
    func paths() {
        #expect(ForwardAuthPath.normalized("/%61dmin") == "/admin")
        #expect(ForwardAuthPath.normalized("/x/../admin/") == "/admin")
        #expect(ForwardAuthPath.normalized("//admin") == "/admin")
        #expect(ForwardAuthPath.normalized("/public%2F..%2Fadmin") == "/admin")
        #expect(ForwardAuthPath.normalized("/./a/./b") == "/a/b")
        #expect(ForwardAuthPath.normalized("/../../a") == "/a")
        #expect(ForwardAuthPath.normalized("/") == "/")
        #expect(ForwardAuthPath.normalized("/a%") == nil)
        #expect(ForwardAuthPath.normalized("/a%zz") == nil)
        #expect(ForwardAuthPath.normalized("/a%00") == nil)
        #expect(ForwardAuthPath.normalized("/a%ff") == nil)
    }

    @Test("return URLs: only http(s) on the domain or under it; every open-redirect trick is refused")
    func returnURLs() throws {
        let accepted = [
            ("https://app.example.com/x?y=1#frag", "https://app.example.com/x?y=1"), ("https://example.com", "https://example.com/"),
            ("HTTPS://App.Example.COM:8443/a", "https://app.example.com:8443/a"), ("http://a.b.example.com?q", "http://a.b.example.com/?q"),
            ("https://app.example.com//evil.test", "https://app.example.com//evil.test"),
            ("https://app.example.com/%2F%2Fevil.test", "https://app.example.com/%2F%2Fevil.test"),
        ]
        for (text, result) in accepted {
            #expect(ForwardAuthReturnURL(text, domain: "example.com", httpsOnly: false)?.text == result, "\(text)")
        }
        let refused = [
            "https://evil.test/", "https://example.com.evil.test/", "https://evilexample.com/", "https://example.com@evil.test/",
            "https://user:pass@app.example.com/", "https://evil.test\\@app.example.com/", "https:\\\\evil.test", "https:/\\evil.test",
            "//evil.test", "/\\evil.test", "/relative", "javascript:alert(1)//.example.com", "data:text/html,x", "ftp://app.example.com/",
            "https:evil.test", "https:/evil.test", "https://evil.test%2F.example.com/", "https://evil.test%2f@app.example.com",
            "https://app.example.com./", "https://app.example.com:0/", "https://app.example.com:99999/", "https://app.example.com:/",
            "https://app.example.com:8o/", "https://app.example.com\t/", "https://app.exa mple.com/", "https://app.example.com/\u{0}",
            "https://xn--80ak6aa92e.com/", "https://аpp.example.com/", "https://app.example.com\r\nSet-Cookie: x=1", "",
            "https://", "https://:443/", "https://-app.example.com/", "https://[::1]/", "https://127.0.0.1/",
            "https://app.example.com" + String(repeating: "/a", count: 1100),
        ]
        for text in refused {
            #expect(ForwardAuthReturnURL(text, domain: "example.com", httpsOnly: false) == nil, "\(text)")
        }
        #expect(ForwardAuthReturnURL("http://app.example.com/", domain: "example.com", httpsOnly: true) == nil, "http when the cookie is Secure")
    }

    @Test("the cache keeps found sessions for its lifetime, never past the session, at most its capacity; forget drops at once")
    func cache() {
        let start = Date()
        let cache = ForwardAuthCache(lifetime: 5, capacity: 4)
        func identity(_ id: String, expires: TimeInterval = 3600) -> ForwardAuthIdentity {
            ForwardAuthIdentity(accountId: id, username: nil, displayName: id, email: nil, groups: [], authenticatedAt: start, expiresAt: start + expires)
        }
        cache.keep(identity("a"), tokenHash: [1], now: start)
        #expect(cache.identity(tokenHash: [1], now: start + 4.9)?.accountId == "a")
        #expect(cache.identity(tokenHash: [1], now: start + 5) == nil, "the stated bound: 5 s")
        cache.keep(identity("b", expires: 2), tokenHash: [2], now: start)
        #expect(cache.identity(tokenHash: [2], now: start + 2) == nil, "never past the session's end")
        for byte in UInt8(10)..<UInt8(50) { cache.keep(identity("\(byte)"), tokenHash: [byte], now: start + 6) }
        #expect(cache.count <= 4)
        cache.keep(identity("c"), tokenHash: [3], now: start + 6)
        cache.forget(tokenHash: [3])
        #expect(cache.identity(tokenHash: [3], now: start + 6) == nil)
        cache.keep(identity("c"), tokenHash: [4], now: start + 6)
        cache.forget(accountId: "c")
        #expect(cache.identity(tokenHash: [4], now: start + 6) == nil)
        let off = ForwardAuthCache(lifetime: 0)
        off.keep(identity("a"), tokenHash: [1], now: start)
        #expect(off.identity(tokenHash: [1], now: start) == nil && off.count == 0)
    }

    @Test("--cookie-domain must be the RP ID or a parent of it, with every origin under it; the other settings are bounded")
    func settings() throws {
        func check(_ adjust: (inout ServerConfiguration) -> Void) -> String? {
            var configuration = ServerConfiguration()
            configuration.rpId = "login.example.com"
            configuration.origins = ["https://login.example.com"]
            adjust(&configuration)
            do { try configuration.validateForwardAuth(); return nil } catch { return error.description }
        }
        #expect(check { $0.cookieDomain = "example.com" } == nil)
        #expect(check { $0.cookieDomain = "login.example.com" } == nil)
        #expect(check { $0.cookieDomain = "other.com" }?.contains("must be the RP ID") == true)
        #expect(check { $0.cookieDomain = "ample.com" }?.contains("must be the RP ID") == true)
        #expect(check { $0.cookieDomain = "com" }?.contains("two labels") == true)
        #expect(check { $0.cookieDomain = "Example.com" }?.contains("lower-case") == true)
        #expect(check { $0.cookieDomain = ".example.com" } != nil)
        #expect(check { $0.cookieDomain = "example.com"; $0.origins.append("https://other.test") }?.contains("not under the cookie domain") == true)
        #expect(check { $0.cookieDomain = "a.login.example.com" } != nil, "a child of the RP ID would not reach the page's own host")
        #expect(check { $0.forwardAuthHeaderPrefix = "X-Auth-Request-" } == nil)
        #expect(check { $0.forwardAuthHeaderPrefix = "Remote User" } != nil)
        #expect(check { $0.forwardAuthHeaderPrefix = "" } != nil)
        #expect(check { $0.forwardAuthCacheTTL = 61 } != nil)
        #expect(check { $0.forwardAuthCacheTTL = 0 } == nil)
    }
}
