import Foundation
import Testing
@testable import LatchkeyServer

@Suite("The web page's files")
struct PageTests {
    @Test("served with a strict CSP, no inline script, and revalidating cache headers")
    func served() async throws {
        try await TestServer.run { api in
            let page = try await api.send(.get, "/")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            let csp = try #require(page.headers[.contentSecurityPolicy])
            #expect(csp.contains("script-src 'self'"))
            #expect(!csp.contains("unsafe-inline"))
            #expect(csp.contains("frame-ancestors 'none'"))
            #expect(page.headers[.cacheControl] == "no-cache")
            #expect(page.text.contains(#"id="passkey-name""#))
            #expect(!page.text.contains("<script>"), "no inline script")
            for id in ["register", "login", "display-name", "credo", "update", "logout", "delete", "confirm-delete", "passkeys", "add-passkey", "status", "error", "welcome", "account"] {
                #expect(page.text.contains(#"id="\#(id)""#), "missing #\(id)")
            }
            let etag = try #require(page.headers[.eTag])
            #expect(try await api.send(.get, "/", headers: [.ifNoneMatch: etag]).status == .notModified)
            let script = try await api.send(.get, "/app.js")
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(!script.text.contains("localStorage.set"), "the page never stores tokens")
            #expect(try await api.send(.get, "/style.css").status == .ok)
        }
    }
}
