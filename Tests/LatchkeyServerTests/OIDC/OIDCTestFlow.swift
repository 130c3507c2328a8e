import Crypto
import Foundation
import HTTPTypes
import SoftAuthenticator
import Testing
@testable import LatchkeyServer

/// The steps every in-process OpenID Connect suite repeats, done the way a browser and a relying party do
/// them over the public HTTP routes (as Tests/System/OIDC/oidc_support.py does against the real binary): clients
/// made through `POST /api/admin/clients`, a person signed up with a software passkey, the user agent's
/// part through the page's JSON API (`/api/oidc/authorization`, `/api/oidc/consent`), and the client's part
/// at `/oidc/token` and `/oidc/userinfo`. Only the admin key is put in the store directly, as
/// `latchkey admin keys create` would. Each test makes its own (`run`): a fresh in-memory server.
struct OIDCTestFlow: Sendable {
    static let callback = "https://rp.example/callback"
    static let loggedOut = "https://rp.example/logged-out"
    /// A native app's redirect (RFC 8252 §7.1), for the public client.
    static let native = "com.example.app:/callback"
    static let allScopes = ["openid", "profile", "email", "groups", "offline_access"]

    let api: APIClient
    let application: LatchkeyApplication
    let adminKey: String

    /// The issuer: with no `oidcIssuer` configured, the first origin.
    var issuer: String { TestServer.origin }

    /// Runs `body` against a fresh OIDC-enabled server with a write admin key.
    static func run(_ body: @Sendable (OIDCTestFlow) async throws -> Void) async throws {
        try await TestServer.withApplication(OIDCClientFactsTests.configuration()) { (api, application) async throws in
            let key = try await OIDCClientFactsTests.adminKey(application.store)
            try await body(OIDCTestFlow(api: api, application: application, adminKey: key))
        }
    }

    // MARK: Setup

    /// A registered client: its secret is nil when it is public.
    struct Client: Sendable {
        let id: String
        let secret: String?
    }

    /// A client made through the admin API, as the operator makes one; not first-party, so the person
    /// is asked to consent the first time.
    func client(
        public isPublic: Bool = false, redirectURIs: [String] = [callback], postLogoutURIs: [String] = []
    ) async throws -> Client {
        var body: [String: Any] = [
            "name": isPublic ? "Public app" : "Confidential app", "redirectUris": redirectURIs, "scopes": Self.allScopes, "public": isPublic,
        ]
        if !postLogoutURIs.isEmpty { body["postLogoutUris"] = postLogoutURIs }
        let reply = try await api.send(.post, "/api/admin/clients", object: body, token: adminKey)
        try #require(reply.status == .created, "create client: \(reply.text)")
        let client = try #require(reply.json?["client"] as? [String: Any])
        let secret = reply.json?["clientSecret"] as? String
        #expect((secret == nil) == isPublic, "a secret exactly for a confidential client: \(reply.text)")
        return Client(id: try #require(client["id"] as? String), secret: secret)
    }

    /// Someone signed up with a passkey: their session is the sign-in the provider relies on.
    func person(_ name: String = "Ada Lovelace") async throws -> APIClient.Session {
        try await api.register(name, with: SoftAuthenticator(store: InMemoryCredentialStore()))
    }

    // MARK: The user agent's part

    /// What an authorization request gave back, with what the client kept to check and redeem it.
    struct Code: Sendable {
        let code: String
        let state: String
        let nonce: String
        let verifier: String?
        let redirectURI: String
    }

    /// The whole user-agent side for a signed-in person: the authorization request (PKCE S256 when
    /// `pkce`), the consent when asked (allowed), and the redirect it ends with, which must go to
    /// `redirectURI` with the code, the state and the issuer (RFC 9207).
    func code(
        for person: APIClient.Session, client: Client, redirectURI: String = callback, scope: String = "openid profile", pkce: Bool = true,
        extra: [(String, String)] = []
    ) async throws -> Code {
        let state = Self.randomText(), nonce = Self.randomText()
        var parameters = [
            ("response_type", "code"), ("client_id", client.id), ("redirect_uri", redirectURI), ("scope", scope), ("state", state),
            ("nonce", nonce),
        ] + extra
        var verifier: String?
        if pkce {
            let pair = Self.pkcePair()
            verifier = pair.verifier
            parameters += [("code_challenge", pair.challenge), ("code_challenge_method", "S256")]
        }
        let query = Self.form(parameters)
        var reply = try await api.send(.post, "/api/oidc/authorization", object: ["query": query], token: person.token)
        try #require(reply.status == .ok, "authorization: \(reply.text)")
        if reply.json?["interaction"] as? String == "consent" {
            #expect((reply.json?["client"] as? [String: Any])?["id"] as? String == client.id)
            var body: [String: Any] = ["query": query, "allow": true]
            if let after = reply.json?["after"] as? String { body["after"] = after }
            reply = try await api.send(.post, "/api/oidc/consent", object: body, token: person.token)
            try #require(reply.status == .ok, "consent: \(reply.text)")
        }
        let redirect = try #require(reply.json?["redirect"] as? String, "no redirect: \(reply.text)")
        #expect(redirect.hasPrefix(redirectURI + "?"), "\(redirect)")
        let answer = Self.query(of: redirect)
        #expect(answer["error"] == nil, "\(redirect)")
        #expect(answer["state"] == state)
        #expect(answer["iss"] == issuer)
        return Code(code: try #require(answer["code"], "\(redirect)"), state: state, nonce: nonce, verifier: verifier, redirectURI: redirectURI)
    }

    // MARK: The client's part

    /// `POST /oidc/token` with the form `parameters`: a confidential client authenticates with
    /// client_secret_basic, a public one names itself with client_id (`none`).
    func token(_ parameters: [(String, String)], client: Client) async throws -> APIClient.Reply {
        var parameters = parameters
        var headers = HTTPFields()
        if let secret = client.secret {
            let pair = Self.encode(client.id) + ":" + Self.encode(secret)  // RFC 6749 §2.3.1
            headers[.authorization] = "Basic " + Data(pair.utf8).base64EncodedString()
        } else {
            parameters.append(("client_id", client.id))
        }
        return try await api.send(
            .post, "/oidc/token", body: Data(Self.form(parameters).utf8), headers: headers, contentType: "application/x-www-form-urlencoded")
    }

    /// The code redeemed: with its verifier, or `verifier` instead when given ("" sends none).
    func exchange(_ code: Code, client: Client, verifier: String? = nil) async throws -> APIClient.Reply {
        var parameters = [("grant_type", "authorization_code"), ("code", code.code), ("redirect_uri", code.redirectURI)]
        if let sent = verifier ?? code.verifier, !sent.isEmpty { parameters.append(("code_verifier", sent)) }
        return try await token(parameters, client: client)
    }

    /// The tokens of a successful token response, which must not be cached (RFC 6749 §5.1).
    func tokens(_ reply: APIClient.Reply) throws -> [String: Any] {
        try #require(reply.status == .ok, "token: \(reply.text)")
        #expect(reply.headers[.cacheControl] == "no-store")
        return try #require(reply.json)
    }

    /// A refresh (RFC 6749 §6), asking for `scope` when given.
    func refresh(_ refreshToken: String, client: Client, scope: String? = nil) async throws -> APIClient.Reply {
        var parameters = [("grant_type", "refresh_token"), ("refresh_token", refreshToken)]
        if let scope { parameters.append(("scope", scope)) }
        return try await token(parameters, client: client)
    }

    /// `POST /oidc/revoke` (RFC 7009) of `token`, authenticated as `client` is at the token endpoint.
    func revoke(_ token: String, client: Client) async throws -> APIClient.Reply {
        var parameters = [("token", token)]
        var headers = HTTPFields()
        if let secret = client.secret {
            headers[.authorization] = "Basic " + Data((Self.encode(client.id) + ":" + Self.encode(secret)).utf8).base64EncodedString()
        } else {
            parameters.append(("client_id", client.id))
        }
        return try await api.send(
            .post, "/oidc/revoke", body: Data(Self.form(parameters).utf8), headers: headers, contentType: "application/x-www-form-urlencoded")
    }

    /// `GET /oidc/userinfo` with the access token as a bearer token.
    func userInfo(_ accessToken: String) async throws -> APIClient.Reply {
        try await api.send(.get, "/oidc/userinfo", token: accessToken)
    }

    /// The OAuth error code of a refusal (RFC 6749 §5.2), `nil` for anything else.
    static func oauthError(_ reply: APIClient.Reply) -> String? {
        reply.status.code == 200 ? nil : reply.json?["error"] as? String
    }

    // MARK: Encodings, with Foundation only

    /// A JWT's payload, decoded from base64url: its signature is not checked here (AccessTokenTests checks
    /// the keys; these suites check what the provider says in it).
    static func claims(ofJWT token: String) throws -> [String: Any] {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        try #require(parts.count == 3, "not a JWT: \(token)")
        var text = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        text += String(repeating: "=", count: (4 - text.count % 4) % 4)
        let data = try #require(Data(base64Encoded: text), "payload is not base64url")
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    static func base64URL(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func randomText() -> String {
        base64URL((0..<16).map { _ in UInt8.random(in: .min ... .max) })
    }

    /// (code_verifier, S256 code_challenge) as RFC 7636 §4.1–4.2 make them.
    static func pkcePair() -> (verifier: String, challenge: String) {
        let verifier = base64URL((0..<32).map { _ in UInt8.random(in: .min ... .max) })
        return (verifier, base64URL(SHA256.hash(data: Array(verifier.utf8))))
    }

    /// at_hash (Core §3.1.3.6) for ES256: the left half of the access token's SHA-256, base64url.
    static func leftHash(_ accessToken: String) -> String {
        base64URL(Array(SHA256.hash(data: Array(accessToken.utf8))).prefix(16))
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    /// application/x-www-form-urlencoded, as a query or a body.
    static func form(_ pairs: [(String, String)]) -> String {
        pairs.map { encode($0.0) + "=" + encode($0.1) }.joined(separator: "&")
    }

    /// The query parameters of a URL, one value each.
    static func query(of url: String) -> [String: String] {
        var answer: [String: String] = [:]
        for item in URLComponents(string: url)?.queryItems ?? [] {
            #expect(answer[item.name] == nil, "\(item.name) repeated in \(url)")
            answer[item.name] = item.value ?? ""
        }
        return answer
    }
}
