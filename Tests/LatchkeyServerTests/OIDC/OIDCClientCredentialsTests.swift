import Crypto
import Foundation
import HTTPTypes
import Testing
@testable import LatchkeyServer

/// The client-credentials grant (RFC 6749 §4.4) as `OIDCTokenEndpoint` answers it: only a confidential
/// client an operator allowed it gets a token, for itself (`sub` is the client), carrying only the API
/// scopes the operator defined for it; the token introspects until the client's secret is rotated, the
/// client removed, or the client revokes it (RFC 7009), and never reaches UserInfo.
@Suite("OpenID Connect: client credentials, in process")
struct OIDCClientCredentialsTests {
    static func run(_ body: @Sendable (OIDCTestFlow) async throws -> Void) async throws {
        let configuration = TestServer.configuration {
            $0.oidc = true
            $0.signUp = .open
            $0.introspectionSecret = AccessTokenTests.secret
        }
        try await TestServer.withApplication(configuration) { (api, application) async throws in
            let key = try await OIDCClientFactsTests.adminKey(application.store)
            try await body(OIDCTestFlow(api: api, application: application, adminKey: key))
        }
    }

    /// A confidential machine client allowed client_credentials, with two API scopes and no redirect URI.
    static func machine(_ flow: OIDCTestFlow, grants: [String] = ["client_credentials"]) async throws -> OIDCTestFlow.Client {
        let reply = try await flow.api.send(.post, "/api/admin/clients", object: [
            "name": "Billing service", "grantTypes": grants, "apiScopes": ["orders:read", "orders:write"],
        ], token: flow.adminKey)
        try #require(reply.status == .created, "create client: \(reply.text)")
        let client = try #require(reply.json?["client"] as? [String: Any])
        #expect(client["grantTypes"] as? [String] == grants)
        #expect(client["apiScopes"] as? [String] == ["orders:read", "orders:write"])
        #expect(client["redirectUris"] as? [String] == [])
        return OIDCTestFlow.Client(id: try #require(client["id"] as? String), secret: try #require(reply.json?["clientSecret"] as? String))
    }

    static func credentials(_ flow: OIDCTestFlow, _ client: OIDCTestFlow.Client, scope: String? = nil) async throws -> APIClient.Reply {
        var parameters = [("grant_type", "client_credentials")]
        if let scope { parameters.append(("scope", scope)) }
        return try await flow.token(parameters, client: client)
    }

    static func active(_ flow: OIDCTestFlow, _ token: String) async throws -> [String: Any] {
        let reply = try await AccessTokenTests.introspect(flow.api, token)
        try #require(reply.status == .ok, "introspect: \(reply.text)")
        return try #require(reply.json)
    }

    @Test("a token for the client itself: sub, aud and client_id are the client, its scopes among its API scopes, no id_token or refresh token")
    func issued() async throws {
        try await Self.run { flow in
            let client = try await Self.machine(flow)
            let tokens = try flow.tokens(try await Self.credentials(flow, client, scope: "orders:read"))
            #expect(tokens["id_token"] == nil)
            #expect(tokens["refresh_token"] == nil)
            #expect(tokens["token_type"] as? String == "Bearer")
            #expect(tokens["scope"] as? String == "orders:read")
            let access = try #require(tokens["access_token"] as? String)
            let claims = try OIDCTestFlow.claims(ofJWT: access)
            #expect(claims["sub"] as? String == client.id)
            #expect(claims["client_id"] as? String == client.id)
            #expect(claims["aud"] as? String == client.id || (claims["aud"] as? [String]) == [client.id])
            #expect(claims["auth_time"] == nil && claims["amr"] == nil, "no person signed in: \(claims)")
            #expect(claims["iss"] as? String == flow.issuer)
            let introspected = try await Self.active(flow, access)
            #expect(introspected["active"] as? Bool == true)
            #expect(introspected["sub"] as? String == client.id)
            #expect(introspected["client_id"] as? String == client.id)
            #expect(introspected["scope"] as? String == "orders:read")
            // No person: UserInfo has nobody to describe.
            #expect(try await flow.userInfo(access).status == .unauthorized)
            // No scope asked: every API scope (RFC 6749 §3.3's default).
            let all = try flow.tokens(try await Self.credentials(flow, client))
            #expect(all["scope"] as? String == "orders:read orders:write")
            let events = try await flow.application.store.auditEvents(.init(kind: .oidcClientCredentialsIssued))
            #expect(events.count == 2)
            #expect(events.allSatisfy { $0.accountId == nil && $0.detail.contains(client.id) })
        }
    }

    @Test("a scope outside the client's API scopes, a person scope, a client not allowed the grant, and a wrong secret are refused")
    func refusals() async throws {
        try await Self.run { flow in
            let client = try await Self.machine(flow)
            #expect(OIDCTestFlow.oauthError(try await Self.credentials(flow, client, scope: "orders:read admin")) == "invalid_scope")
            #expect(OIDCTestFlow.oauthError(try await Self.credentials(flow, client, scope: "openid")) == "invalid_scope")
            let wrong = OIDCTestFlow.Client(id: client.id, secret: "lk_client_wrong")
            let refused = try await Self.credentials(flow, wrong)
            #expect(refused.status == .unauthorized && OIDCTestFlow.oauthError(refused) == "invalid_client")
            // A web app's client, not allowed it.
            let web = try await flow.client()
            #expect(OIDCTestFlow.oauthError(try await Self.credentials(flow, web)) == "unauthorized_client")
            // And the machine client may not sign people in with codes.
            let code = try await flow.token([("grant_type", "authorization_code"), ("code", "x"), ("redirect_uri", OIDCTestFlow.callback)], client: client)
            #expect(OIDCTestFlow.oauthError(code) == "unauthorized_client")
        }
    }

    @Test("the operator's rules: client_credentials only for a confidential client, API scopes are names and not person scopes")
    func rules() async throws {
        try await Self.run { flow in
            func create(_ body: [String: Any]) async throws -> APIClient.Reply {
                try await flow.api.send(.post, "/api/admin/clients", object: body, token: flow.adminKey)
            }
            let publicOne = try await create(["name": "CLI", "public": true, "grantTypes": ["client_credentials"]])
            #expect(publicOne.status.code == 422 && publicOne.text.contains("grant_type_invalid"), "\(publicOne.text)")
            let unknown = try await create(["name": "X", "grantTypes": ["password"]])
            #expect(unknown.status.code == 422 && unknown.text.contains("grant_type_invalid"), "\(unknown.text)")
            let personScope = try await create(["name": "X", "grantTypes": ["client_credentials"], "apiScopes": ["email"]])
            #expect(personScope.status.code == 422 && personScope.text.contains("api_scope_invalid"), "\(personScope.text)")
            let badName = try await create(["name": "X", "grantTypes": ["client_credentials"], "apiScopes": ["a b"]])
            #expect(badName.status.code == 422 && badName.text.contains("api_scope_invalid"), "\(badName.text)")
            let noRedirect = try await create(["name": "X"])
            #expect(noRedirect.status.code == 422 && noRedirect.text.contains("redirect_uri_required"), "\(noRedirect.text)")
            // A machine client made public later would keep a grant it cannot prove itself for.
            let client = try await Self.machine(flow)
            let madePublic = try await flow.api.send(.patch, "/api/admin/clients/\(client.id)", object: ["public": true], token: flow.adminKey)
            #expect(madePublic.status.code == 422 && madePublic.text.contains("grant_type_invalid"), "\(madePublic.text)")
            let discovery = try await flow.api.send(.get, "/.well-known/openid-configuration")
            #expect((discovery.json?["grant_types_supported"] as? [String])?.contains("client_credentials") == true)
        }
    }

    @Test("a rotated secret, a narrowed API scope, an RFC 7009 revocation and the client's removal each end its tokens")
    func revocation() async throws {
        try await Self.run { flow in
            var client = try await Self.machine(flow)
            func token(_ scope: String? = nil) async throws -> String {
                try #require(try flow.tokens(try await Self.credentials(flow, client, scope: scope))["access_token"] as? String)
            }
            // Rotation: the old secret's tokens end.
            let beforeRotation = try await token()
            let rotated = try await flow.api.send(.post, "/api/admin/clients/\(client.id)/secret", object: [:], token: flow.adminKey)
            try #require(rotated.status == .ok, "rotate: \(rotated.text)")
            client = OIDCTestFlow.Client(id: client.id, secret: try #require(rotated.json?["clientSecret"] as? String))
            #expect(try await Self.active(flow, beforeRotation)["active"] as? Bool == false)
            // A scope the operator took away: the tokens carrying it end.
            let write = try await token("orders:write")
            let read = try await token("orders:read")
            let narrowed = try await flow.api.send(
                .patch, "/api/admin/clients/\(client.id)", object: ["apiScopes": ["orders:read"]], token: flow.adminKey)
            try #require(narrowed.status == .ok, "\(narrowed.text)")
            #expect(try await Self.active(flow, write)["active"] as? Bool == false)
            #expect(try await Self.active(flow, read)["active"] as? Bool == true)
            // RFC 7009: another client may not revoke it; its own client ends it (and its siblings).
            let web = try await flow.client()
            let foreign = try await flow.revoke(read, client: web)
            #expect(OIDCTestFlow.oauthError(foreign) == "unauthorized_client")
            #expect(try await Self.active(flow, read)["active"] as? Bool == true)
            #expect(try await flow.revoke(read, client: client).status == .ok)
            #expect(try await Self.active(flow, read)["active"] as? Bool == false)
            // A new one works, until the client is removed.
            let fresh = try await token()
            #expect(try await Self.active(flow, fresh)["active"] as? Bool == true)
            let removed = try await flow.api.send(.delete, "/api/admin/clients/\(client.id)", token: flow.adminKey)
            #expect(removed.status.code < 300, "\(removed.text)")
            #expect(try await Self.active(flow, fresh)["active"] as? Bool == false)
        }
    }

    // MARK: private_key_jwt (RFC 7523)

    /// A P-256 key pair: the private key signs assertions, the JWKS text is what the operator registers.
    struct ClientKey {
        let key = P256.Signing.PrivateKey()
        let kid: String

        var jwks: String {
            let raw = Array(key.publicKey.rawRepresentation)
            return #"{"keys":[{"kty":"EC","crv":"P-256","use":"sig","alg":"ES256","kid":"\#(kid)","x":"\#(OIDCTestFlow.base64URL(raw.prefix(32)))","y":"\#(OIDCTestFlow.base64URL(raw.suffix(32)))"}]}"#
        }

        /// An ES256 JWT made by hand (header, payload, the signature's r and s), as a client library would.
        func assertion(iss: String, sub: String? = nil, aud: String, expiresIn: TimeInterval = 60, jti: String = OIDCTestFlow.randomText()) throws -> String {
            let header = #"{"alg":"ES256","typ":"JWT","kid":"\#(kid)"}"#
            let exp = Int(Date().addingTimeInterval(expiresIn).timeIntervalSince1970)
            let payload = #"{"iss":"\#(iss)","sub":"\#(sub ?? iss)","aud":"\#(aud)","exp":\#(exp),"jti":"\#(jti)"}"#
            let input = OIDCTestFlow.base64URL(Array(header.utf8)) + "." + OIDCTestFlow.base64URL(Array(payload.utf8))
            let signature = try key.signature(for: Array(input.utf8))
            return input + "." + OIDCTestFlow.base64URL(Array(signature.rawRepresentation))
        }
    }

    static func withAssertion(_ flow: OIDCTestFlow, _ assertion: String, extra: [(String, String)] = []) async throws -> APIClient.Reply {
        let form = [("grant_type", "client_credentials"), ("client_assertion_type", OIDCClientAssertion.type), ("client_assertion", assertion)] + extra
        return try await flow.api.send(
            .post, "/oidc/token", body: Data(OIDCTestFlow.form(form).utf8), contentType: "application/x-www-form-urlencoded")
    }

    @Test("private_key_jwt with published keys (jwksUri): fetched from the client's URL once and kept; refused from a private address without --webhook-allow-private")
    func publishedKeys() async throws {
        let server = try await WebhookReceiver()
        let key = ClientKey(kid: "k1")
        server.serve(key.jwks)
        do {
            for allowPrivate in [true, false] {
                var configuration = OIDCClientFactsTests.configuration()
                configuration.webhookAllowPrivate = allowPrivate
                try await TestServer.withApplication(configuration) { api, application in
                    let flow = OIDCTestFlow(api: api, application: application, adminKey: try await OIDCClientFactsTests.adminKey(application.store))
                    let before = server.accepted.count
                    let reply = try await api.send(.post, "/api/admin/clients", object: [
                        "name": "Published keys", "grantTypes": ["client_credentials"], "apiScopes": ["jobs:run"], "jwksUri": server.url,
                    ], token: flow.adminKey)
                    try #require(reply.status == .created, "\(reply.text)")
                    #expect(reply.json?["clientSecret"] is NSNull, "published keys, no secret: \(reply.text)")
                    let client = try #require(reply.json?["client"] as? [String: Any])
                    #expect(client["public"] as? Bool == false && client["jwksUri"] as? String == server.url)
                    let id = try #require(client["id"] as? String)
                    let tokenEndpoint = flow.issuer + "/oidc/token"
                    let first = try await Self.withAssertion(flow, try key.assertion(iss: id, aud: tokenEndpoint))
                    let second = try await Self.withAssertion(flow, try key.assertion(iss: id, aud: tokenEndpoint))
                    if allowPrivate {
                        #expect(first.status == .ok && second.status == .ok, "\(first.text) \(second.text)")
                        #expect(server.accepted.count == before + 1, "fetched once, then kept")
                    } else {
                        #expect(first.status == .unauthorized && OIDCTestFlow.oauthError(first) == "invalid_client", "\(first.text)")
                        #expect(server.accepted.count == before, "a loopback address is never asked without --webhook-allow-private")
                    }
                    let alone = try await flow.token([("grant_type", "client_credentials")], client: OIDCTestFlow.Client(id: id, secret: nil))
                    #expect(alone.status == .unauthorized && OIDCTestFlow.oauthError(alone) == "invalid_client", "the id alone: \(alone.text)")
                    for bad in [["jwksUri": "ftp://keys.example/jwks"], ["jwksUri": "http://keys.example/jwks"], ["jwksUri": server.url, "jwks": key.jwks]] {
                        let refused = try await api.send(
                            .post, "/api/admin/clients", object: ["name": "Bad", "grantTypes": ["client_credentials"]].merging(bad) { $1 }, token: flow.adminKey)
                        #expect(refused.status.code == 422 && refused.errorCode == "jwks_invalid", "\(bad): \(refused.text)")
                    }
                }
            }
        } catch {
            try? await server.stop()
            throw error
        }
        try await server.stop()
    }

    @Test("private_key_jwt: a signed assertion authenticates once; wrong audience, far expiry, another key or the id alone do not")
    func privateKeyJWT() async throws {
        try await Self.run { flow in
            let key = ClientKey(kid: "k1")
            let reply = try await flow.api.send(.post, "/api/admin/clients", object: [
                "name": "Signed job", "grantTypes": ["client_credentials"], "apiScopes": ["jobs:run"], "jwks": key.jwks,
            ], token: flow.adminKey)
            try #require(reply.status == .created, "\(reply.text)")
            #expect(reply.json?["clientSecret"] is NSNull || reply.json?["clientSecret"] == nil, "keys, no secret: \(reply.text)")
            let client = try #require(reply.json?["client"] as? [String: Any])
            #expect(client["public"] as? Bool == false)
            let id = try #require(client["id"] as? String)
            let discovery = try await flow.api.send(.get, "/.well-known/openid-configuration")
            #expect((discovery.json?["token_endpoint_auth_methods_supported"] as? [String])?.contains("private_key_jwt") == true)

            let tokenEndpoint = flow.issuer + "/oidc/token"
            let good = try key.assertion(iss: id, aud: tokenEndpoint)
            let tokens = try flow.tokens(try await Self.withAssertion(flow, good))
            #expect(try OIDCTestFlow.claims(ofJWT: try #require(tokens["access_token"] as? String))["sub"] as? String == id)
            // The issuer as audience is fine too; client_id, when sent, must agree.
            #expect(try await Self.withAssertion(flow, try key.assertion(iss: id, aud: flow.issuer), extra: [("client_id", id)]).status == .ok)

            func refused(_ reply: APIClient.Reply, _ why: Comment) {
                #expect(reply.status == .unauthorized && OIDCTestFlow.oauthError(reply) == "invalid_client", why)
            }
            refused(try await Self.withAssertion(flow, good), "a replayed assertion (same jti)")
            refused(try await Self.withAssertion(flow, try key.assertion(iss: id, aud: "https://elsewhere.example/token")), "another audience")
            refused(try await Self.withAssertion(flow, try key.assertion(iss: id, aud: tokenEndpoint, expiresIn: 3 * 3600)), "exp three hours ahead")
            refused(try await Self.withAssertion(flow, try key.assertion(iss: id, aud: tokenEndpoint, expiresIn: -10)), "expired")
            refused(try await Self.withAssertion(flow, try key.assertion(iss: "someone", sub: id, aud: tokenEndpoint)), "iss is not the client")
            refused(try await Self.withAssertion(flow, try ClientKey(kid: "k1").assertion(iss: id, aud: tokenEndpoint)), "another key")
            refused(try await Self.withAssertion(flow, try key.assertion(iss: id, aud: tokenEndpoint), extra: [("client_id", "other")]), "client_id differs")
            // Unsigned ("none") is never taken.
            let header = OIDCTestFlow.base64URL(Array(#"{"alg":"none","kid":"k1"}"#.utf8))
            let payload = OIDCTestFlow.base64URL(Array(#"{"iss":"\#(id)","sub":"\#(id)","aud":"\#(tokenEndpoint)","exp":\#(Int(Date().timeIntervalSince1970) + 60),"jti":"x"}"#.utf8))
            refused(try await Self.withAssertion(flow, header + "." + payload + "."), "alg none")
            // Its id alone is nothing: it has keys.
            refused(try await flow.token([("grant_type", "client_credentials")], client: OIDCTestFlow.Client(id: id, secret: nil)), "the id alone")
        }
    }

    @Test("registered keys must be a JWKS of public keys with kids")
    func jwksRules() async throws {
        try await Self.run { flow in
            func create(_ jwks: String) async throws -> APIClient.Reply {
                try await flow.api.send(.post, "/api/admin/clients", object: [
                    "name": "Keys", "grantTypes": ["client_credentials"], "jwks": jwks,
                ], token: flow.adminKey)
            }
            let key = ClientKey(kid: "k1")
            let withPrivate = key.jwks.replacingOccurrences(of: #""kid":"k1""#, with: #""kid":"k1","d":"AAAA""#)
            for bad in ["not json", #"{"keys":[]}"#, #"{"keys":[{"kty":"oct","kid":"a","k":"c2VjcmV0"}]}"#, withPrivate,
                        key.jwks.replacingOccurrences(of: #","kid":"k1""#, with: ""),
                        #"{"keys":[{"kty":"EC","crv":"P-256","kid":"a","x":"AA","y":"AA"}]}"#,
                        // A coordinate without its leading zero byte (31 bytes), as some libraries write it.
                        #"{"keys":[{"kty":"EC","crv":"P-256","kid":"a","x":"\#(OIDCTestFlow.base64URL([UInt8](repeating: 7, count: 31)))","y":"\#(OIDCTestFlow.base64URL([UInt8](repeating: 7, count: 32)))"}]}"#] {
                let reply = try await create(bad)
                #expect(reply.status.code == 422 && reply.errorCode == "jwks_invalid", "\(bad): \(reply.text)")
            }
        }
    }
}
