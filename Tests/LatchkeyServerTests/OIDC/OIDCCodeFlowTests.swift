import Foundation
import Testing
@testable import LatchkeyServer

/// The authorization code flow end to end in process (OpenID Connect Core §3.1), through
/// `OIDCProvider` and `OIDCTokenEndpoint` as a relying party meets them: until now only the real binary
/// was driven through it, from Python (Tests/System/OIDC). A failure here names the Swift line that broke it.
@Suite("OpenID Connect: the code flow, in process")
struct OIDCCodeFlowTests {
    @Test("a confidential client's code flow: a code with state and iss, tokens whose id_token names the person for this client, and UserInfo")
    func confidentialClient() async throws {
        try await OIDCTestFlow.run { flow in
            let client = try await flow.client()
            let person = try await flow.person()
            let code = try await flow.code(for: person, client: client, pkce: false)
            let tokens = try flow.tokens(try await flow.exchange(code, client: client))
            #expect(tokens["token_type"] as? String == "Bearer")
            #expect((tokens["expires_in"] as? Int ?? 0) > 0)
            #expect(tokens["refresh_token"] == nil, "a refresh token only with offline_access")
            #expect(tokens["scope"] as? String == "openid profile")
            let accessToken = try #require(tokens["access_token"] as? String)
            let claims = try OIDCTestFlow.claims(ofJWT: try #require(tokens["id_token"] as? String))
            #expect(claims["iss"] as? String == flow.issuer)
            let audience = (claims["aud"] as? [String]) ?? [claims["aud"] as? String].compactMap { $0 }
            #expect(audience == [client.id])
            #expect(claims["sub"] as? String == person.accountId)
            #expect(claims["nonce"] as? String == code.nonce)
            #expect(claims["at_hash"] as? String == OIDCTestFlow.leftHash(accessToken), "at_hash binds the id_token to this access token")
            let info = try await flow.userInfo(accessToken)
            #expect(info.status == .ok, "\(info.text)")
            #expect(info.json?["sub"] as? String == person.accountId)
        }
    }

    @Test("a public client must use PKCE S256: a code redeemed without its verifier, or with another, is refused; with it, tokens")
    func publicClientNeedsPKCE() async throws {
        try await OIDCTestFlow.run { flow in
            let client = try await flow.client(public: true, redirectURIs: [OIDCTestFlow.native])
            #expect(client.secret == nil)
            let person = try await flow.person()
            // Without a challenge the request itself goes back to the app as invalid_request (RFC 9700 §2.1.1).
            let query = OIDCTestFlow.form([
                ("response_type", "code"), ("client_id", client.id), ("redirect_uri", OIDCTestFlow.native), ("scope", "openid"), ("state", "s"),
            ])
            let refused = try await flow.api.send(.post, "/api/oidc/authorization", object: ["query": query], token: person.token)
            let redirect = try #require(refused.json?["redirect"] as? String, "\(refused.text)")
            #expect(OIDCTestFlow.query(of: redirect)["error"] == "invalid_request")

            let missing = try await flow.code(for: person, client: client, redirectURI: OIDCTestFlow.native)
            #expect(OIDCTestFlow.oauthError(try await flow.exchange(missing, client: client, verifier: "")) == "invalid_grant")
            let wrong = try await flow.code(for: person, client: client, redirectURI: OIDCTestFlow.native)
            let other = OIDCTestFlow.pkcePair().verifier
            #expect(OIDCTestFlow.oauthError(try await flow.exchange(wrong, client: client, verifier: other)) == "invalid_grant")
            let right = try await flow.code(for: person, client: client, redirectURI: OIDCTestFlow.native)
            let tokens = try flow.tokens(try await flow.exchange(right, client: client))
            let claims = try OIDCTestFlow.claims(ofJWT: try #require(tokens["id_token"] as? String))
            #expect(claims["sub"] as? String == person.accountId)
        }
    }

    @Test("a code is used once: the second exchange is invalid_grant, and the first exchange's access token stops working (RFC 6749 §4.1.2)")
    func codeReuse() async throws {
        try await OIDCTestFlow.run { flow in
            let client = try await flow.client()
            let person = try await flow.person()
            let code = try await flow.code(for: person, client: client)
            let first = try flow.tokens(try await flow.exchange(code, client: client))
            let accessToken = try #require(first["access_token"] as? String)
            #expect(try await flow.userInfo(accessToken).status == .ok)
            let again = try await flow.exchange(code, client: client)
            #expect(again.status == .badRequest && OIDCTestFlow.oauthError(again) == "invalid_grant", "\(again.text)")
            let after = try await flow.userInfo(accessToken)
            #expect(after.status == .unauthorized, "revoked with the grant: \(after.text)")
        }
    }
}
