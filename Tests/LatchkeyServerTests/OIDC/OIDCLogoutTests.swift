import Foundation
import Testing
@testable import LatchkeyServer

/// RP-initiated logout (OpenID Connect RP-Initiated Logout 1.0) in process: `/end-session` checks the
/// request and serves the page, whose script asks `POST /api/oidc/logout` with the person's session. An
/// id_token_hint naming that person shows the request is theirs, so the session ends without asking,
/// and the person is sent back to the client's registered post_logout_redirect_uri with its state.
@Suite("OpenID Connect: RP-initiated logout, in process")
struct OIDCLogoutTests {
    @Test("end-session with a registered post_logout_redirect_uri and the id_token as hint ends the person's session and redirects with state")
    func endSession() async throws {
        try await OIDCTestFlow.run { flow in
            let client = try await flow.client(postLogoutURIs: [OIDCTestFlow.loggedOut])
            let person = try await flow.person()
            let code = try await flow.code(for: person, client: client)
            let tokens = try flow.tokens(try await flow.exchange(code, client: client))
            let idToken = try #require(tokens["id_token"] as? String)
            #expect(try await flow.api.send(.get, "/api/account", token: person.token).status == .ok)

            let query = OIDCTestFlow.form([("id_token_hint", idToken), ("post_logout_redirect_uri", OIDCTestFlow.loggedOut), ("state", "bye")])
            // The endpoint finds nothing wrong with the request: it serves the page (an error page otherwise).
            let page = try await flow.api.send(.get, "/end-session?" + query)
            #expect(page.status == .ok, "\(page.status): \(page.text)")
            let reply = try await flow.api.send(.post, "/api/oidc/logout", object: ["query": query], token: person.token)
            #expect(reply.status == .ok, "\(reply.text)")
            let redirect = try #require(reply.json?["redirect"] as? String, "\(reply.text)")
            #expect(redirect.hasPrefix(OIDCTestFlow.loggedOut + "?"))
            #expect(OIDCTestFlow.query(of: redirect)["state"] == "bye")
            #expect(try await flow.api.send(.get, "/api/account", token: person.token).status == .unauthorized, "the session is over")
        }
    }
}
