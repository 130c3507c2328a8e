import Foundation
import HTTPTypes
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
            for id in ["register", "login", "logout-everywhere", "delete-dialog", "cancel-delete", "unsupported", "display-name", "credo", "update", "logout", "delete", "confirm-delete", "passkeys", "add-passkey", "activity", "activity-more", "status", "error", "welcome", "account"] {
                #expect(page.text.contains(#"id="\#(id)""#), "missing #\(id)")
            }
            let etag = try #require(page.headers[.eTag])
            #expect(try await api.send(.get, "/", headers: [.ifNoneMatch: etag]).status == .notModified)
            // The script is ES modules that import one another by these paths: each one served, as
            // JavaScript (a module with another type is refused by the browser), under the same CSP.
            for module in ["/app.js", "/api.js", "/ui.js", "/webauthn.js", "/passkey-list.js", "/app-list.js", "/activity.js", "/recovery.js",
                           "/email.js", "/device-approval.js", "/oidc.js", "/scopes.js", "/restricted-passkey.js"] {
                let script = try await api.send(.get, module)
                #expect(script.status == .ok, "\(module)")
                #expect(script.headers[.contentType] == "text/javascript; charset=utf-8", "\(module)")
                #expect(script.headers[.contentSecurityPolicy] == csp, "\(module)")
                #expect(!script.text.contains("localStorage"), "the page never stores tokens (\(module))")
                #expect(!script.text.contains("innerHTML"), "server text goes in as text, never as HTML (\(module))")
                for imported in script.text.matches(of: /from "\.(\/[a-z-]+\.js)"/).map({ String($0.1) }) {
                    #expect(try await api.send(.get, imported).status == .ok, "\(module) imports \(imported)")
                }
            }
            #expect(try await api.send(.get, "/style.css").status == .ok)
        }
    }

    @Test("the scopes are put in words in scopes.js only; the consent screen, Apps with access and Recent activity import it")
    func scopeWordsInOnePlace() async throws {
        try await TestServer.run { api in
            let scopes = try await api.send(.get, "/scopes.js")
            #expect(scopes.status == .ok)
            for scope in ["openid", "profile", "email", "groups", "offline_access"] {
                #expect(scopes.text.contains("\(scope): { label: "), "scopes.js describes \(scope)")
            }
            for module in ["/oidc.js", "/app-list.js", "/activity.js"] {
                let script = try await api.send(.get, module).text
                #expect(script.contains(#"from "./scopes.js""#), "\(module) imports scopes.js")
                #expect(!script.contains("offline_access"), "\(module) has no words of its own for the scopes")
            }
        }
    }

    @Test("/recover is the same page under the same policy (a recovery link is /recover#CODE)")
    func recoverPage() async throws {
        try await TestServer.run { api in
            let page = try await api.send(.get, "/")
            let recover = try await api.send(.get, "/recover")
            #expect(recover.status == .ok)
            #expect(recover.data == page.data)
            #expect(recover.headers[.contentSecurityPolicy] == page.headers[.contentSecurityPolicy])
            #expect(recover.headers[.contentType] == "text/html; charset=utf-8")
            let referrerPolicy = try #require(HTTPField.Name("Referrer-Policy"))
            #expect(recover.headers[referrerPolicy] == "no-referrer", "nothing of the page's address leaves it")
            for id in ["recover", "recovery-code", "recover-exchange", "recover-add-passkey", "recover-login", "lost-passkey", "recovery-risk"] {
                #expect(page.text.contains(#"id="\#(id)""#), "missing #\(id)")
            }
        }
    }

    @Test("/verify-email is the same page too (an email confirmation link is /verify-email#TOKEN)")
    func verifyEmailPage() async throws {
        try await TestServer.run { api in
            let page = try await api.send(.get, "/")
            let verify = try await api.send(.get, "/verify-email")
            #expect(verify.status == .ok)
            #expect(verify.data == page.data)
            #expect(verify.headers[.contentSecurityPolicy] == page.headers[.contentSecurityPolicy])
            for id in ["new-device-start", "new-device", "new-device-code", "approve-card", "approve-code", "approve-confirm", "approve-deny",
                       "email-card", "email-address", "email-save", "email-remove", "recover-email-form", "recover-email", "recover-email-send"] {
                #expect(page.text.contains(#"id="\#(id)""#), "missing #\(id)")
            }
        }
    }
}
