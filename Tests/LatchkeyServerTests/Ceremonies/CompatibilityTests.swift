import Foundation
import HTTPTypes
import LatchkeyAPI
import SoftAuthenticator
import Testing
@testable import LatchkeyServer

/// The compatibility APIs' parsing and routing (issue 15); the client journeys run against the real
/// binary in Tests/System/Compat.
@Suite("Compatibility APIs")
struct CompatibilityTests {
    @Test("the query string is percent-decoded once, + stays a plus, and a repeated or broken name is refused")
    func query() throws {
        let query = try CompatibilityQuery("operation=update&displayName=C++%20100%25&credo=")
        #expect(query["operation"] == "update")
        #expect(query["displayName"] == "C++ 100%")
        #expect(query["credo"] == "")
        #expect(throws: APIError.self) { try CompatibilityQuery("a=1&a=2") }
        #expect(throws: APIError.self) { try CompatibilityQuery("a=%ZZ") }
        let empty = try CompatibilityQuery(nil)
        #expect(empty["operation"] == nil)
    }

    @Test("read's percent-encoding undoes exactly")
    func percentEncoding() {
        for text in ["C++ 100% sûr", "a/b?c&d=e", "日本語", "line\nbreak", ""] {
            #expect(CompatibilityEncoding.percentEncoded(text).removingPercentEncoding == text)
        }
        #expect(CompatibilityEncoding.standardBase64("+/8=") == [0xfb, 0xff])
        #expect(CompatibilityEncoding.standardBase64("+/8") == [0xfb, 0xff])
        #expect(CompatibilityEncoding.standardBase64("-_8") == nil)
        #expect(CompatibilityEncoding.standardBase64("") == nil)
    }

    @Test("the PassKeysDemo path must be a plain absolute path outside /api and /.well-known")
    func path() {
        #expect(CompatibilityAPI.problem(withPassKeysDemoPath: "/pkd/index.php") == nil)
        for bad in ["pkd/index.php", "/", "/pkd/", "/pkd//index.php", "/api/index.php", "/.well-known/x", "/pkd/:id", "/pkd/*", "/../x"] {
            #expect(CompatibilityAPI.problem(withPassKeysDemoPath: bad) != nil, "\(bad)")
        }
        var configuration = TestServer.configuration()
        configuration.passKeysDemoPath = "/api/pkd"
        #expect(throws: ServerConfiguration.Invalid.self) { try configuration.validate() }
    }

    @Test("off by default; on, both APIs answer beside the checked API document")
    func routing() async throws {
        try await TestServer.run { api in
            let pkd = try await api.send(.get, "/pkd/index.php?operation=login")
            #expect(pkd.status == .notFound)
            let hanko = try await api.send(.get, "/authentication_initialize")
            #expect(hanko.status == .notFound)
        }
        let on = TestServer.configuration { $0.compatibility = [.passKeysDemo, .hanko] }
        try await TestServer.run(on) { api in
            let login = try await api.send(.get, "/pkd/index.php?operation=login")
            #expect(login.status == .ok)
            #expect((login.json?["allowedIDs"] as? [String]) == [])
            let unknown = try await api.send(.get, "/pkd/index.php?operation=nope")
            #expect(unknown.status == .badRequest)
            #expect(unknown.json?["code"] as? String == "unknown_operation")
            let read = try await api.send(.get, "/pkd/index.php?operation=read")
            #expect(read.status == .unauthorized)
            let options = try await api.send(.get, "/authentication_initialize")
            #expect(options.status == .ok)
            let content = try await api.send(.get, "/content")
            #expect(content.status == .temporaryRedirect)
            #expect(content.headers[.location] == "/")
        }
    }

    @Test("the page's name is HTML-escaped")
    func escaping() {
        #expect(HTMLText.escaped(#"<a href="x">'&'</a>"#) == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
        // SECURITY-FINDINGS-3.md, finding 6: a Prepend scalar (U+0600, U+110BD) forms one grapheme cluster with the `<`,
        // `"` or `>` after it; each of those is still escaped, and the Prepend scalar kept.
        for prepend in ["\u{600}", "\u{110BD}", "\u{6DD}", "\u{D4E}"] {
            let hostile = "\(prepend)<meta http-equiv=\(prepend)\"refresh\(prepend)\"\(prepend)>"
            let escaped = HTMLText.escaped(hostile)
            #expect(!escaped.unicodeScalars.contains { "<>\"".unicodeScalars.contains($0) }, "\(escaped)")
            #expect(escaped == "\(prepend)&lt;meta http-equiv=\(prepend)&quot;refresh\(prepend)&quot;\(prepend)&gt;")
        }
    }

    @Test("a restricted (recovery) session is no session to the compatibility routes, as the cookie or the bearer token (review 4, S4-11)")
    func restrictedSessions() async throws {
        let on = TestServer.configuration { $0.compatibility = [.hanko, .passKeysDemo] }
        try await TestServer.withApplication(on) { (api, application) async throws in
            let session = try await api.register("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            let recovery = RecoveryService(store: application.store, configuration: on, now: { Date() })
            let issued = try await recovery.issue(accountId: session.accountId, lifetime: 3600, origin: .test)
            let restricted = try await recovery.exchange(code: issued.code, origin: .test).token
            #expect(restricted.hasPrefix(SessionToken.recoveryPrefix))
            #expect(try await application.store.sessionAccount(tokenHash: SessionToken.hash(of: restricted), now: Date()) == nil, "not a full session")
            #expect(try await application.store.sessionAccount(tokenHash: SessionToken.hash(of: session.token), now: Date()) == session.accountId)
            for name in [SessionCookie.name(secure: true, domain: nil), SessionCookie.name(secure: false, domain: nil)] {
                let content = try await api.send(.get, "/content", headers: [.cookie: "\(name)=\(restricted)"])
                #expect(content.status == .forbidden && content.errorCode == "recovery_session_restricted", "\(name): \(content.text)")
                #expect(!content.text.contains("Welcome"))
            }
            let native = try await api.send(.get, "/api/account", headers: [.cookie: "\(SessionCookie.name(secure: true, domain: nil))=\(restricted)"])
            #expect(native.status == .forbidden && native.errorCode == "recovery_session_restricted", "\(native.text)")
            // The page's registration with the restricted token as the cookie is still the one thing it may do.
            let allowed = try await api.send(.post, "/api/registration/options", body: Data("{}".utf8), headers: [
                .cookie: "\(SessionCookie.name(secure: true, domain: nil))=\(restricted)", .origin: TestServer.origin,
            ])
            #expect(allowed.status != .forbidden, "\(allowed.text)")
        }
    }

    @Test("Hanko: a finalize without Origin must not say it came from another site; GET /logout from another site signs nobody out (SECURITY-FINDINGS-3.md, finding 7)")
    func hankoCrossSite() async throws {
        let on = TestServer.configuration { $0.compatibility = [.hanko] }
        try await TestServer.run(on) { api in
            let body = Data("{}".utf8)
            for path in ["/authentication_finalize", "/registration_finalize"] {
                for site in ["cross-site", "same-site"] {
                    let refused = try await api.send(.post, path, body: body, headers: [HTTPField.Name("Sec-Fetch-Site")!: site], contentType: "text/plain")
                    #expect(refused.status == .forbidden && refused.text.contains("origin_required"), "\(path) \(site): \(refused.text)")
                }
                // Shiny (no Origin, no Sec-Fetch-Site) and the page itself (same-origin) get past the check.
                for headers: HTTPFields in [[:], [HTTPField.Name("Sec-Fetch-Site")!: "same-origin"]] {
                    let passed = try await api.send(.post, path, body: body, headers: headers, contentType: "text/plain")
                    #expect(passed.status == .badRequest, "\(path): \(passed.text)")
                }
            }
            let session = try await api.register("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            let cookie = "\(SessionCookie.name(secure: true, domain: nil))=\(session.token)"
            let embedded = try await api.send(.get, "/logout", headers: [.cookie: cookie, HTTPField.Name("Sec-Fetch-Site")!: "same-site"])
            #expect(embedded.status == .temporaryRedirect && embedded.headers[.setCookie] == nil)
            #expect(try await api.send(.get, "/api/account", token: session.token).status == .ok, "a sibling's <img src=/logout> signs nobody out")
            let clicked = try await api.send(.get, "/logout", headers: [.cookie: cookie, HTTPField.Name("Sec-Fetch-Site")!: "same-origin"])
            #expect(clicked.status == .temporaryRedirect && clicked.headers[.setCookie] != nil)
            #expect(try await api.send(.get, "/api/account", token: session.token).status == .unauthorized)
        }
    }
}
