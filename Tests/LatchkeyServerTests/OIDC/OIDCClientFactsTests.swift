import Foundation
import HTTPTypes
import Testing
@testable import LatchkeyServer

/// What the provider remembers about its registered clients (`OIDCClientFacts`), and the two things that
/// use it: the JWKS, which publishes RSA keys once some client wants RS256 id_tokens without asking the
/// database on every fetch, and CORS on the machine endpoints, for the origins of the clients' redirect
/// URIs. A change through this instance's admin API is seen at once; one made behind its back (`latchkey
/// admin`, another instance of a cluster) within `OIDCClientFacts.lifetime`.
@Suite("The provider's memory of its clients: the JWKS's RSA keys and the web origins CORS allows")
struct OIDCClientFactsTests {
    static func configuration() -> ServerConfiguration {
        TestServer.configuration {
            $0.oidc = true
            $0.signUp = .open  // the suites sign people up through the API (with --oidc the default is invite)
        }
    }

    static func algorithms(_ api: APIClient) async throws -> Set<String> {
        let reply = try await api.send(.get, "/.well-known/jwks.json")
        try #require(reply.status == .ok, "jwks: \(reply.text)")
        #expect(reply.headers[.accessControlAllowOrigin] == "*")
        let keys = try #require(reply.json?["keys"] as? [[String: Any]])
        return Set(keys.compactMap { $0["alg"] as? String })
    }

    /// A write admin key, stored as `latchkey admin keys create` stores it.
    static func adminKey(_ store: Store, scope: AdminKeyRecord.Scope = .write) async throws -> String {
        let secret = AdminKeySecret.generate()
        let record = AdminKeyRecord(
            id: secret.id, secretHash: SecretDigest.of(secret.text), scope: scope, name: "test", createdAt: Date(), createdBy: "test")
        try await store.adminKeys.insert(record, event: AuditOrigin.test.event(.adminKeyCreated, at: Date(), account: nil))
        return secret.text
    }

    static func createClient(_ api: APIClient, key: String, _ body: [String: Any]) async throws {
        let reply = try await api.send(.post, "/api/admin/clients", object: body, token: key)
        try #require(reply.status == .created, "\(reply.text)")
    }

    static func preflight(_ api: APIClient, _ path: String = "/oidc/token", origin: String) async throws -> APIClient.Reply {
        try await api.send(.options, path, headers: [.origin: origin, .accessControlRequestMethod: "POST"])
    }

    @Test("a client made RS256 behind the server's back reaches the JWKS within 30 s, without a query per fetch before")
    func jwksRemembers() async throws {
        let clock = AccessTokenTests.Clock(Date(timeIntervalSince1970: 1_800_000_000))
        try await TestServer.withApplication(Self.configuration(), now: clock.now) { (api, application) async throws in
            #expect(try await Self.algorithms(api) == ["ES256"])
            // As `latchkey admin` (another process) or another instance would: straight into the database.
            var client = StoreTests.client("elsewhere")
            client.idTokenAlgorithm = "RS256"
            #expect(try await application.store.oidcClients.insert(client, event: StoreTests.event(.oidcClientCreated)))
            #expect(try await Self.algorithms(api) == ["ES256"], "remembered: the database was not asked")
            clock.set(Date(timeIntervalSince1970: 1_800_000_029))
            #expect(try await Self.algorithms(api) == ["ES256"])
            clock.set(Date(timeIntervalSince1970: 1_800_000_030))
            #expect(try await Self.algorithms(api) == ["ES256", "RS256"], "read again after OIDCClientFacts.lifetime")
        }
    }

    @Test("an anonymous id_token_hint headed RS256 makes no RSA keys while no client uses RS256 (review 4, S4-13)")
    func hintMakesNoKeys() async throws {
        try await TestServer.withApplication(Self.configuration()) { (api, application) async throws in
            let hint = "eyJhbGciOiJSUzI1NiIsImtpZCI6IngifQ.e30.x"  // {"alg":"RS256","kid":"x"}.{}.x
            let reply = try await api.send(.get, "/end-session?id_token_hint=\(hint)")
            #expect(reply.status.code < 500, "\(reply.text)")
            #expect(try await Self.algorithms(api) == ["ES256"])
            let keys = try await application.store.connections.withConnection { db in
                try await db.raw("SELECT name FROM server_keys").all().map { try $0.decode(column: "name", as: String.self) }
            }
            #expect(!keys.isEmpty && !keys.contains { $0.hasPrefix(AccessTokenIssuer.rsaKeyNamePrefix) }, "\(keys)")
        }
    }

    @Test("a client made RS256 through this instance's admin API is in the JWKS at once")
    func adminAPIForgets() async throws {
        let clock = AccessTokenTests.Clock(Date(timeIntervalSince1970: 1_800_000_000))
        try await TestServer.withApplication(Self.configuration(), now: clock.now) { (api, application) async throws in
            let key = try await Self.adminKey(application.store)
            try await Self.createClient(api, key: key, ["name": "ES256 app", "redirectUris": ["https://es.example/cb"]])
            #expect(try await Self.algorithms(api) == ["ES256"])
            try await Self.createClient(api, key: key, ["name": "RS256 app", "redirectUris": ["https://rs.example/cb"], "idTokenAlg": "RS256"])
            #expect(try await Self.algorithms(api) == ["ES256", "RS256"])
        }
    }

    @Test("the preflight allows the origins of the clients' redirect URIs, named back; another origin is 403 origin_not_allowed")
    func preflightAllowsClientOrigins() async throws {
        try await TestServer.withApplication(Self.configuration()) { (api, application) async throws in
            let key = try await Self.adminKey(application.store)
            try await Self.createClient(api, key: key, [
                "name": "SPA", "public": true, "redirectUris": ["https://spa.example/callback", "http://localhost:5173/cb", "com.example.app:/cb"],
            ])
            for origin in ["https://spa.example", "http://localhost:5173"] {
                let reply = try await Self.preflight(api, origin: origin)
                #expect(reply.status == .noContent, "\(origin): \(reply.text)")
                #expect(reply.headers[.accessControlAllowOrigin] == origin)
                #expect(reply.headers[.accessControlAllowMethods] == "POST")
                #expect(reply.headers[.accessControlAllowHeaders] == "Authorization, Content-Type")
                #expect(reply.headers[.accessControlAllowCredentials] == nil)
            }
            let userinfo = try await Self.preflight(api, "/oidc/userinfo", origin: "https://spa.example")
            #expect(userinfo.headers[.accessControlAllowMethods] == "GET, POST")
            for origin in ["https://evil.example", "http://spa.example", "https://spa.example:8443", "null", "https://spa.example.evil"] {
                let reply = try await Self.preflight(api, origin: origin)
                #expect(reply.status == .forbidden && reply.errorCode == "origin_not_allowed", "\(origin): \(reply.text)")
                #expect(reply.headers[.accessControlAllowOrigin] == nil)
            }
            // An answer (here an error: no grant type) names an allowed origin, and only that.
            let form = Data("client_id=x".utf8)
            var reply = try await api.send(.post, "/oidc/token", body: form, headers: [.origin: "https://spa.example"], contentType: "application/x-www-form-urlencoded")
            #expect(reply.status.code >= 400 && reply.headers[.accessControlAllowOrigin] == "https://spa.example" && reply.headers[.vary] == "Origin")
            reply = try await api.send(.post, "/oidc/token", body: form, headers: [.origin: "https://evil.example"], contentType: "application/x-www-form-urlencoded")
            #expect(reply.headers[.accessControlAllowOrigin] == nil)
            #expect(try await api.send(.get, "/.well-known/openid-configuration").headers[.accessControlAllowOrigin] == "*")
        }
    }

    @Test("a redirect URI's web origin: scheme and authority, lower-cased, without the default port; none for a native app's scheme")
    func webOrigins() {
        #expect(OIDCClientFacts.webOrigin(of: "https://App.Example.com/cb?x=1") == "https://app.example.com")
        #expect(OIDCClientFacts.webOrigin(of: "https://app.example.com:443/cb") == "https://app.example.com")
        #expect(OIDCClientFacts.webOrigin(of: "https://app.example.com:8443") == "https://app.example.com:8443")
        #expect(OIDCClientFacts.webOrigin(of: "http://localhost:80/cb") == "http://localhost")
        #expect(OIDCClientFacts.webOrigin(of: "http://[::1]:8080/cb") == "http://[::1]:8080")
        #expect(OIDCClientFacts.webOrigin(of: "com.example.app:/oauth2redirect") == nil)
        #expect(OIDCClientFacts.webOrigin(of: "https:///cb") == nil)
    }
}
