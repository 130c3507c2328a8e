import Crypto
import Foundation
import Testing
@testable import LatchkeyServer

/// OpenID Connect clients through the admin API, in process (`AdminService+Clients`), as
/// Tests/System/Admin/test_oidc_clients.py does against the binary: a confidential client's secret is in the
/// answer that made it and nowhere else — not listed, not shown, not audited, stored only as its SHA-256
/// (which is what the token endpoint checks); rotation replaces it; a redirect URI no client should have
/// is refused with its rule named, for `redirectUris` and `postLogoutUris` alike, and nothing is stored.
@Suite("The admin API on OpenID Connect clients, in process")
struct AdminClientTests {
    static var secretShape: Regex<Substring> { /lk_client_[A-Za-z0-9_-]{43}/ }

    /// `POST /oidc/token` with a code nobody issued: the client's authentication is checked first, so a
    /// wrong secret is `invalid_client` and the right one gets as far as the code (`invalid_grant`).
    static func tokenError(_ flow: OIDCTestFlow, id: String, secret: String) async throws -> String? {
        OIDCTestFlow.oauthError(try await flow.token(
            [("grant_type", "authorization_code"), ("code", "nobody-issued-this"), ("redirect_uri", OIDCTestFlow.callback)],
            client: OIDCTestFlow.Client(id: id, secret: secret)))
    }

    @Test("a confidential client's secret is shown once, stored only as its SHA-256, never listed or audited; rotation replaces it")
    func secretShownOnce() async throws {
        try await OIDCTestFlow.run { flow in
            let api = flow.api, key = flow.adminKey
            let made = try await api.send(.post, "/api/admin/clients", object: ["name": "Grafana", "redirectUris": [OIDCTestFlow.callback]], token: key)
            try #require(made.status == .created, "\(made.text)")
            let secret = try #require(made.json?["clientSecret"] as? String)
            #expect(secret.wholeMatch(of: Self.secretShape) != nil, "\(secret)")
            let id = try #require((made.json?["client"] as? [String: Any])?["id"] as? String)

            let stored = try #require(try await flow.application.store.oidcClients.client(id: id))
            #expect(stored.secretHash == Array(SHA256.hash(data: Array(secret.utf8))))
            let seen = [
                try await api.send(.get, "/api/admin/clients", token: key), try await api.send(.get, "/api/admin/clients/\(id)", token: key),
                try await api.send(.get, "/api/admin/audit", token: key),
            ]
            for reply in seen {
                #expect(reply.status == .ok && !reply.text.contains(secret) && !reply.text.contains(String(secret.dropFirst(10))), "\(reply.text)")
                #expect(!reply.text.contains("secretHash") && !reply.text.contains("clientSecret"), "\(reply.text)")
            }
            #expect(try await Self.tokenError(flow, id: id, secret: secret) == "invalid_grant", "the secret authenticates the client")

            let rotated = try await api.send(.post, "/api/admin/clients/\(id)/secret", token: key)
            let newSecret = try #require(rotated.json?["clientSecret"] as? String, "\(rotated.text)")
            #expect(newSecret != secret && newSecret.wholeMatch(of: Self.secretShape) != nil && rotated.json?["grantsRevoked"] as? Int == 0)
            #expect(try await flow.application.store.oidcClients.client(id: id)?.secretHash == Array(SHA256.hash(data: Array(newSecret.utf8))))
            #expect(try await Self.tokenError(flow, id: id, secret: secret) == "invalid_client", "the old secret no longer authenticates")
            #expect(try await Self.tokenError(flow, id: id, secret: newSecret) == "invalid_grant")

            let kinds = try await api.auditTrail(key: key).compactMap { $0["event"] as? String }
            #expect(kinds.filter { $0.hasPrefix("oidc_client.") } == ["oidc_client.secret_rotated", "oidc_client.created"], "\(kinds)")
            #expect(!(try await api.send(.get, "/api/admin/audit", token: key).text.contains(newSecret)))
        }
    }

    @Test("a public client has no secret, and none to rotate; an id is taken once")
    func publicClient() async throws {
        try await OIDCTestFlow.run { flow in
            let api = flow.api, key = flow.adminKey
            let made = try await api.send(
                .post, "/api/admin/clients", object: ["id": "immich.app", "name": "Immich", "public": true, "redirectUris": [OIDCTestFlow.native]],
                token: key)
            #expect(made.status == .created && made.json?["clientSecret"] is NSNull, "\(made.text)")
            #expect(try await flow.application.store.oidcClients.client(id: "immich.app")?.secretHash == nil)
            let rotate = try await api.send(.post, "/api/admin/clients/immich.app/secret", token: key)
            #expect(rotate.status == .conflict && rotate.errorCode == "client_is_public", "\(rotate.text)")
            let again = try await api.send(.post, "/api/admin/clients", object: ["id": "immich.app", "name": "Again", "redirectUris": [OIDCTestFlow.callback]], token: key)
            #expect(again.status == .conflict && again.errorCode == "client_id_taken", "\(again.text)")
            #expect(try await api.send(.get, "/api/admin/clients/immich.app", token: key).json?["name"] as? String == "Immich")
        }
    }

    /// One redirect URI for each rule (`OIDCClientRulesTests` tries every form against the rules; here
    /// the admin API must apply them), with the words the refusal must name.
    static let badRedirectURIs: [(uri: String, rule: String)] = [
        ("http://grafana.example.com/cb", "http on a host other than localhost"), ("https://a.example/cb#fragment", "fragment"),
        ("https://user:password@a.example/cb", "user name or password"), ("/oauth/callback", "not an absolute URI"),
        ("https:///cb", "must name a host"), ("https://a.example/c b", "percent-encoded"), ("javascript:alert(1)", "nobody's callback"),
        ("https://a.example/" + String(repeating: "x", count: 2048), "1 to 2048 bytes"),
    ]

    @Test("a bad redirect URI is refused with redirect_uri_invalid naming its rule, as a post-logout URI with post_logout_uri_invalid; nothing is stored")
    func badRedirectURIs() async throws {
        try await OIDCTestFlow.run { flow in
            let api = flow.api, key = flow.adminKey
            for (uri, rule) in Self.badRedirectURIs {
                let reply = try await api.send(.post, "/api/admin/clients", object: ["name": "App", "redirectUris": ["https://ok.example/cb", uri]], token: key)
                let message = (reply.json?["error"] as? [String: Any])?["message"] as? String ?? ""
                #expect(reply.status == .unprocessableContent && reply.errorCode == "redirect_uri_invalid", "\(uri): \(reply.text)")
                #expect(message.contains(rule) && message.contains("redirectUris"), "\(uri): \(message)")
                let logout = try await api.send(
                    .post, "/api/admin/clients", object: ["name": "App", "redirectUris": ["https://ok.example/cb"], "postLogoutUris": [uri]], token: key)
                #expect(logout.status == .unprocessableContent && logout.errorCode == "post_logout_uri_invalid", "\(uri): \(logout.text)")
            }
            #expect(try await api.send(.get, "/api/admin/clients", token: key).array?.isEmpty == true, "no client was stored")
            let good = try await api.send(
                .post, "/api/admin/clients", object: ["name": "App", "redirectUris": ["http://127.0.0.1:2283/cb", "http://[::1]/cb", OIDCTestFlow.native]], token: key)
            #expect(good.status == .created, "loopback http and a native app's scheme are allowed: \(good.text)")
        }
    }
}
