import Foundation
import HTTPTypes
import NIOCore
import SoftAuthenticator
import Testing
import WebAuthn
@testable import LatchkeyServer

/// A request that changes something with the session cookie must show it came from this site.
@Suite("Changes made with the session cookie (CSRF)")
struct CookieCSRFTests {
    @Test("a cookie-authenticated change needs an allowed Origin, or Sec-Fetch-Site: same-origin; reads do not (SECURITY-FINDINGS.md, finding 14)")
    func csrf() async throws {
        try await TestServer.run { api in
            let session = try await api.register("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            let cookie = "\(SessionCookie.name(secure: true, domain: nil))=\(session.token)"
            let fetchSite = try #require(HTTPField.Name("Sec-Fetch-Site"))
            var reply = try await api.send(.patch, "/api/account", body: Data(#"{"credo":"x"}"#.utf8), headers: [.cookie: cookie])
            #expect(reply.status == .forbidden)
            #expect(reply.errorCode == "origin_required")
            reply = try await api.send(.patch, "/api/account", body: Data(#"{"credo":"x"}"#.utf8), headers: [.cookie: cookie, fetchSite: "cross-site"])
            #expect(reply.status == .forbidden)
            reply = try await api.send(.patch, "/api/account", body: Data(#"{"credo":"x"}"#.utf8), headers: [.cookie: cookie, fetchSite: "same-origin"])
            #expect(reply.status == .ok)
            reply = try await api.send(.patch, "/api/account", body: Data(#"{"credo":"y"}"#.utf8), headers: [.cookie: cookie, .origin: TestServer.origin])
            #expect(reply.status == .ok)
            #expect(try await api.send(.get, "/api/account", headers: [.cookie: cookie]).status == .ok, "reads need neither")
            // Over https the cookie is __Host- prefixed; the unprefixed name is not read.
            #expect(try await api.send(.get, "/api/account", headers: [.cookie: "latchkey_session=\(session.token)"]).status == .unauthorized)
            // The bearer token needs no Origin: other sites cannot make a browser send it.
            #expect(try await api.send(.patch, "/api/account", object: ["credo": "z"], token: session.token).status == .ok)
        }
    }
}
