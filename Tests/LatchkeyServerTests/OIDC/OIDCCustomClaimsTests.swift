import Foundation
import Testing
@testable import LatchkeyServer

/// Custom claims in process: an operator gives an account and a group claims through the admin API; a
/// client whose grant holds the claim's scope reads them in the id_token and at UserInfo (the groups under
/// the name it chose), one whose grant does not never sees them; reserved names and oversized values are
/// refused with their own codes, and the refusal stores nothing.
@Suite("OpenID Connect: custom claims, in process")
struct OIDCCustomClaimsTests {
    /// A client made through the admin API with `scopes` and, when given, a groups claim name.
    static func client(_ flow: OIDCTestFlow, scopes: [String], groupsClaim: String? = nil) async throws -> OIDCTestFlow.Client {
        var body: [String: Any] = ["name": "Claims app", "redirectUris": [OIDCTestFlow.callback], "scopes": scopes]
        if let groupsClaim { body["groupsClaim"] = groupsClaim }
        let reply = try await flow.api.send(.post, "/api/admin/clients", object: body, token: flow.adminKey)
        try #require(reply.status == .created, "\(reply.text)")
        let client = try #require(reply.json?["client"] as? [String: Any])
        #expect(client["groupsClaim"] as? String == groupsClaim ?? "groups")
        return OIDCTestFlow.Client(id: try #require(client["id"] as? String), secret: reply.json?["clientSecret"] as? String)
    }

    static func put(_ flow: OIDCTestFlow, _ path: String, _ body: [String: Any]) async throws -> APIClient.Reply {
        try await flow.api.send(.put, path, object: body, token: flow.adminKey)
    }

    @Test("a client that asks reads the account's and its groups' claims (the account's own first) and its groups under its name; one that does not, none")
    func released() async throws {
        try await OIDCTestFlow.run { flow in
            let person = try await flow.person()
            let grouped = try await flow.api.send(.patch, "/api/admin/accounts/\(person.accountId)", object: ["groups": ["staff"]], token: flow.adminKey)
            #expect(grouped.status == .ok, "\(grouped.text)")
            #expect(try await Self.put(flow, "/api/admin/accounts/\(person.accountId)/claims/department", ["value": "engineering"]).status == .ok)
            #expect(try await Self.put(flow, "/api/admin/groups/staff/claims/team", ["value": "blue", "scope": "groups"]).status == .ok)
            #expect(try await Self.put(flow, "/api/admin/groups/staff/claims/department", ["value": "everyone"]).status == .ok)
            let listed = try await flow.api.send(.get, "/api/admin/groups/staff/claims", token: flow.adminKey)
            #expect((listed.array ?? []).compactMap { $0["name"] as? String } == ["department", "team"], "\(listed.text)")

            let asking = try await Self.client(flow, scopes: ["openid", "profile", "groups"], groupsClaim: "roles")
            let tokens = try flow.tokens(try await flow.exchange(
                try await flow.code(for: person, client: asking, scope: "openid profile groups"), client: asking))
            let idToken = try OIDCTestFlow.claims(ofJWT: try #require(tokens["id_token"] as? String))
            let accessToken = try #require(tokens["access_token"] as? String)
            let info = try #require(try await flow.userInfo(accessToken).json)
            for claims in [idToken, info] {
                #expect(claims["department"] as? String == "engineering", "the account's own claim wins: \(claims)")
                #expect(claims["team"] as? String == "blue")
                #expect(claims["roles"] as? [String] == ["staff"] && claims["groups"] == nil, "\(claims)")
            }

            let other = try await Self.client(flow, scopes: ["openid", "email"])
            let plain = try flow.tokens(try await flow.exchange(try await flow.code(for: person, client: other, scope: "openid email"), client: other))
            let plainToken = try OIDCTestFlow.claims(ofJWT: try #require(plain["id_token"] as? String))
            let plainAccess = try #require(plain["access_token"] as? String)
            let plainInfo = try #require(try await flow.userInfo(plainAccess).json)
            for claims in [plainToken, plainInfo] {
                #expect(claims["department"] == nil && claims["team"] == nil && claims["roles"] == nil && claims["groups"] == nil, "\(claims)")
            }
        }
    }

    @Test("the claims parameter asks for email by name: the email scope is granted (consented) and email comes; a malformed one is invalid_request")
    func claimsParameter() async throws {
        try await OIDCTestFlow.run { flow in
            let person = try await flow.person()
            let set = try await flow.api.send(
                .patch, "/api/admin/accounts/\(person.accountId)", object: ["email": "ada@example.com", "emailVerified": true], token: flow.adminKey)
            #expect(set.status == .ok, "\(set.text)")
            let client = try await Self.client(flow, scopes: ["openid", "profile", "email"])
            let code = try await flow.code(for: person, client: client, scope: "openid", extra: [("claims", #"{"id_token":{"email":{"essential":true}},"userinfo":{"nickname":null}}"#)])
            let tokens = try flow.tokens(try await flow.exchange(code, client: client))
            #expect((tokens["scope"] as? String)?.split(separator: " ").contains("email") == true, "\(tokens)")
            let idToken = try OIDCTestFlow.claims(ofJWT: try #require(tokens["id_token"] as? String))
            #expect(idToken["email"] as? String == "ada@example.com" && idToken["name"] == nil, "\(idToken)")

            for malformed in ["[1]", #"{"id_token":"email"}"#, #"{"userinfo":{"email":true}}"#, #"{"userinfo":{""# + String(repeating: "a", count: 4090) + #"":null}}"#] {
                let query = OIDCTestFlow.form([
                    ("response_type", "code"), ("client_id", client.id), ("redirect_uri", OIDCTestFlow.callback), ("scope", "openid"),
                    ("state", "s"), ("claims", malformed), ("code_challenge", OIDCTestFlow.pkcePair().challenge), ("code_challenge_method", "S256"),
                ])
                let reply = try await flow.api.send(.post, "/api/oidc/authorization", object: ["query": query], token: person.token)
                let redirect = reply.json?["redirect"] as? String ?? ""
                #expect(OIDCTestFlow.query(of: redirect)["error"] == "invalid_request", "\(malformed.prefix(40)): \(reply.text)")
            }
        }
    }

    @Test("reserved names, long values, unknown scopes are 422 with their codes; an unknown account 404; unset removes, twice is 404")
    func rules() async throws {
        try await OIDCTestFlow.run { flow in
            let person = try await flow.person()
            let base = "/api/admin/accounts/\(person.accountId)/claims/"
            for name in ["sub", "iss", "aud", "nonce", "sid", "email", "groups", "AT_HASH"] {
                let reply = try await Self.put(flow, base + name, ["value": "x"])
                #expect(reply.status == .unprocessableContent && reply.errorCode == "claim_name_invalid", "\(name): \(reply.text)")
            }
            let long = try await Self.put(flow, base + "note", ["value": String(repeating: "x", count: 1025)])
            #expect(long.errorCode == "claim_value_invalid", "\(long.text)")
            let scope = try await Self.put(flow, base + "note", ["value": "x", "scope": "openid"])
            #expect(scope.errorCode == "claim_scope_invalid", "\(scope.text)")
            #expect(try await flow.api.send(.get, "/api/admin/accounts/\(person.accountId)/claims", token: flow.adminKey).array?.isEmpty == true)
            let nobody = try await Self.put(flow, "/api/admin/accounts/nobody/claims/note", ["value": "x"])
            #expect(nobody.status == .notFound && nobody.errorCode == "unknown_account", "\(nobody.text)")
            let reserved = try await flow.api.send(
                .post, "/api/admin/clients", object: ["name": "X", "redirectUris": [OIDCTestFlow.callback], "groupsClaim": "sub"], token: flow.adminKey)
            #expect(reserved.errorCode == "claim_scope_invalid", "\(reserved.text)")

            #expect(try await Self.put(flow, base + "note", ["value": "x"]).status == .ok)
            #expect(try await flow.api.send(.delete, base + "note", token: flow.adminKey).status == .noContent)
            let again = try await flow.api.send(.delete, base + "note", token: flow.adminKey)
            #expect(again.status == .notFound && again.errorCode == "unknown_claim", "\(again.text)")
        }
    }
}
