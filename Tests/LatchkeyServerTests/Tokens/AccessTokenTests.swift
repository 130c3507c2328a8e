import Crypto
import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import SoftAuthenticator
import Testing
import WebAuthn
@testable import LatchkeyServer

/// Access tokens for other backends (issue 14): what they say, that the published keys verify them
/// (checked here with swift-crypto directly, not with the JWT library that signed them), rotation, and
/// introspection's refusals. Tests/System/Tokens verifies the same tokens with PyJWT.
@Suite("Access tokens, their keys and introspection")
struct AccessTokenTests {
    static let secret = "introspection-secret-of-the-swift-tests-0123"

    static func configuration(_ adjust: (inout ServerConfiguration) -> Void = { _ in }) -> ServerConfiguration {
        TestServer.configuration {
            $0.accessTokens = true
            $0.introspectionSecret = secret
            $0.accessTokenTTL = 900
            $0.signingKeyLifetime = 3600
            adjust(&$0)
        }
    }

    /// A clock the test moves.
    final class Clock: Sendable {
        let box: NIOLockedValueBox<Date>
        init(_ date: Date) { box = NIOLockedValueBox(date) }
        var now: @Sendable () -> Date { { [box] in box.withLockedValue { $0 } } }
        func set(_ date: Date) { box.withLockedValue { $0 = date } }
    }

    struct Token {
        let text: String
        let header: [String: Any]
        let claims: [String: Any]
        let signingInput: [UInt8]
        let signature: [UInt8]

        init(_ text: String) throws {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            try #require(parts.count == 3)
            self.text = text
            let headerBytes = try #require(Base64URL.decode(parts[0]))
            let claimBytes = try #require(Base64URL.decode(parts[1]))
            header = try #require(try JSONSerialization.jsonObject(with: Data(headerBytes)) as? [String: Any])
            claims = try #require(try JSONSerialization.jsonObject(with: Data(claimBytes)) as? [String: Any])
            signingInput = Array((parts[0] + "." + parts[1]).utf8)
            signature = try #require(Base64URL.decode(parts[2]))
        }
    }

    static func accessToken(_ api: APIClient, _ session: APIClient.Session) async throws -> Token {
        let reply = try await api.send(.post, "/api/token", token: session.token)
        try #require(reply.status == .ok, "token: \(reply.text)")
        #expect(reply.json?["token_type"] as? String == "Bearer")
        #expect(reply.json?["expires_in"] as? Int == 900)
        return try Token(try #require(reply.json?["access_token"] as? String))
    }

    static func jwks(_ api: APIClient) async throws -> [String: P256.Signing.PublicKey] {
        let reply = try await api.send(.get, "/.well-known/jwks.json")
        try #require(reply.status == .ok, "jwks: \(reply.text)")
        let keys = try #require(reply.json?["keys"] as? [[String: String]])
        var byKid: [String: P256.Signing.PublicKey] = [:]
        for key in keys {
            #expect(key["kty"] == "EC" && key["crv"] == "P-256" && key["alg"] == "ES256" && key["use"] == "sig")
            let x = try #require(key["x"].flatMap(Base64URL.decode)), y = try #require(key["y"].flatMap(Base64URL.decode))
            byKid[try #require(key["kid"])] = try P256.Signing.PublicKey(rawRepresentation: x + y)
        }
        return byKid
    }

    static func introspect(_ api: APIClient, _ token: String, secret: String? = secret) async throws -> APIClient.Reply {
        var headers = HTTPFields()
        if let secret { headers[.authorization] = "Bearer \(secret)" }
        let form = "token=" + (token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")
        return try await api.send(.post, "/api/introspect", body: Data(form.utf8), headers: headers, contentType: "application/x-www-form-urlencoded")
    }

    static func verifies(_ token: Token, with keys: [String: P256.Signing.PublicKey]) throws -> Bool {
        guard let kid = token.header["kid"] as? String, let key = keys[kid] else { return false }
        return key.isValidSignature(try P256.Signing.ECDSASignature(rawRepresentation: token.signature), for: token.signingInput)
    }

    @Test("a token names the account, the ceremony's time and methods, and the published key verifies its signature")
    func claims() async throws {
        let clock = Clock(Date(timeIntervalSince1970: 1_800_000_000))
        try await TestServer.run(Self.configuration { $0.tokenAudience = "notes-backend" }, now: clock.now) { api in
            let session = try await api.register("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            clock.set(Date(timeIntervalSince1970: 1_800_000_042))
            let token = try await Self.accessToken(api, session)
            #expect(token.header["alg"] as? String == "ES256")
            #expect(try Self.verifies(token, with: try await Self.jwks(api)))
            #expect(token.claims["sub"] as? String == session.accountId)
            #expect(token.claims["iss"] as? String == TestServer.origin)
            #expect(token.claims["aud"] as? String == "notes-backend" || (token.claims["aud"] as? [String]) == ["notes-backend"])
            #expect(token.claims["iat"] as? Int == 1_800_000_042)
            #expect(token.claims["exp"] as? Int == 1_800_000_042 + 900)
            #expect(token.claims["auth_time"] as? Int == 1_800_000_000, "the registration that opened the session")
            // SoftAuthenticator's passkeys are backup-eligible (synced) and it verifies the user.
            #expect(token.claims["amr"] as? [String] == ["swk", "user", "mfa"])
            let introspected = try await Self.introspect(api, token.text)
            #expect(introspected.json?["active"] as? Bool == true)
            #expect(introspected.json?["sub"] as? String == session.accountId)
            #expect(introspected.json?["token_type"] as? String == "access_token")
        }
    }

    @Test("introspection says inactive for a tampered, expired, foreign-key or unsigned token, and once the session ended")
    func refusals() async throws {
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let clock = Clock(start)
        try await TestServer.run(Self.configuration(), now: clock.now) { api in
            let session = try await api.register("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            let token = try await Self.accessToken(api, session)
            let parts = token.text.split(separator: ".").map(String.init)
            // The payload with another account in it, the signature left as it was.
            var claims = token.claims
            claims["sub"] = "someone-else"
            let tampered = parts[0] + "." + Base64URL.encode(Array(try JSONSerialization.data(withJSONObject: claims))) + "." + parts[2]
            // The same header and payload signed by a key that is not the server's.
            let foreign = parts[0] + "." + parts[1] + "." + Base64URL.encode(Array(
                try P256.Signing.PrivateKey().signature(for: token.signingInput).rawRepresentation))
            // `alg: none`, no signature.
            let unsigned = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT","kid":"\#(token.header["kid"] ?? "")"}"#.utf8)) + "." + parts[1] + "."
            for (name, candidate) in [("tampered", tampered), ("foreign key", foreign), ("alg none", unsigned), ("garbage", "a.b.c")] {
                let reply = try await Self.introspect(api, candidate)
                #expect(reply.status == .ok && reply.text == #"{"active":false}"#, "\(name): \(reply.text)")
            }
            #expect(try await Self.introspect(api, token.text).json?["active"] as? Bool == true)
            // A session token is the account's full power: never active to a backend (review 3, finding 11).
            #expect(try await Self.introspect(api, session.token).text == #"{"active":false}"#)
            // A header nested 513 deep crashed the server through JWTKit's JSONDecoder (review 3, finding 1);
            // so did it behind a well-formed header, in the payload and signature segments.
            let deep = Base64URL.encode(Array(String(repeating: "[", count: 513).utf8))
            for hostile in [deep + ".e30.c2ln", parts[0] + "." + deep + ".c2ln", parts[0] + "." + parts[1] + "." + deep, deep + "." + deep + "." + deep] {
                let reply = try await Self.introspect(api, hostile)
                #expect(reply.status == .ok && reply.text == #"{"active":false}"#, "\(hostile.prefix(40)): \(reply.text)")
            }
            // Without the secret, or with another: 401, and nothing about the token.
            for secret in [nil, "not-the-secret-but-long-enough-to-look-like-one"] {
                let reply = try await Self.introspect(api, token.text, secret: secret)
                #expect(reply.status == .unauthorized && reply.errorCode == "invalid_client")
                #expect(reply.headers[.wwwAuthenticate] != nil)
            }
            // Expired: a second past `exp`.
            clock.set(start + 901)
            #expect(try await Self.introspect(api, token.text).text == #"{"active":false}"#)
            clock.set(start + 10)
            // The session ends: its access tokens stop being active at once (offline verifiers learn at `exp`).
            #expect(try await api.send(.post, "/api/logout", token: session.token).status == .noContent)
            #expect(try await Self.introspect(api, token.text).text == #"{"active":false}"#)
            #expect(try await Self.introspect(api, session.token).text == #"{"active":false}"#)
            #expect(try await api.send(.post, "/api/token", token: session.token).status == .unauthorized)
        }
    }

    @Test("keys rotate: a token signed before the rotation verifies after it until it expires; retired keys leave the JWKS and the database")
    func rotation() async throws {
        // 100 s before a period boundary (periods are 3600 s here).
        let boundary = Date(timeIntervalSince1970: 1_800_003_600)
        let clock = Clock(boundary - 100)
        try await TestServer.withApplication(Self.configuration(), now: clock.now) { api, latchkey in
            let session = try await api.register("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            let before = try await Self.accessToken(api, session)
            let keysBefore = try await Self.jwks(api)
            #expect(keysBefore.count == 3)
            clock.set(boundary + 10)
            let after = try await Self.jwks(api)
            #expect(try Self.verifies(before, with: after), "the previous period's key is still published")
            #expect(before.header["kid"] as? String != (try await Self.accessToken(api, session)).header["kid"] as? String)
            #expect(Set(after.keys).intersection(keysBefore.keys).count == 2, "one key retired, one new a period ahead")
            #expect(try await Self.introspect(api, before.text).json?["active"] as? Bool == true)
            clock.set(boundary + 2 * 3600 + 10)
            #expect(try !Self.verifies(before, with: try await Self.jwks(api)), "two periods on, its key is gone")
            let stored = try await latchkey.store.connections.withConnection { db in
                try await db.raw("SELECT count(*) AS n FROM server_keys WHERE name LIKE 'access-token-es256-%'").first()?.decode(column: "n", as: Int.self)
            }
            #expect(stored == 3, "only the three published keys are kept")
        }
    }

    @Test("the signing keys live in the database: a restarted server publishes the same ones")
    func keysSurviveRestart() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-tokens-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let configuration = Self.configuration { $0.database = .sqlite(path: path) }
        let first = NIOLockedValueBox<[String: P256.Signing.PublicKey]>([:])
        try await TestServer.run(configuration) { api in
            let keys = try await Self.jwks(api)
            first.withLockedValue { $0 = keys }
        }
        try await TestServer.run(configuration) { api in
            let keys = try await Self.jwks(api)
            #expect(keys.mapValues(\.rawRepresentation) == first.withLockedValue { $0 }.mapValues(\.rawRepresentation))
        }
    }

    @Test("introspection reads its form as every OAuth endpoint does (OAuthParameters): a repeated or malformed parameter is refused")
    func introspectionForm() async throws {
        try await TestServer.run(Self.configuration()) { api in
            let session = try await api.register("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            let token = try await Self.accessToken(api, session)
            func send(_ form: String, contentType: String = "application/x-www-form-urlencoded") async throws -> APIClient.Reply {
                try await api.send(.post, "/api/introspect", body: Data(form.utf8), headers: [.authorization: "Bearer \(Self.secret)"], contentType: contentType)
            }
            #expect(try await send("token=\(token.text)&token_type_hint=access_token").json?["active"] as? Bool == true)
            // RFC 6749 §3.2 via RFC 7662 §2.1: a parameter appears once; the first of two was taken before.
            let twice = try await send("token=\(token.text)&token=other")
            #expect(twice.status == .badRequest && twice.errorCode == "malformed_token_parameter", "\(twice.text)")
            #expect(twice.text.contains("more than once"))
            let badEscape = try await send("token=%zz")
            #expect(badEscape.errorCode == "malformed_token_parameter" && badEscape.text.contains("The token parameter is not properly percent-encoded."))
            let otherBad = try await send("token=\(token.text)&x=%zz")
            #expect(otherBad.status == .badRequest && otherBad.errorCode == "malformed_token_parameter", "\(otherBad.text)")
            #expect(try await send("token_type_hint=access_token").errorCode == "missing_token")
            #expect(try await send("token=", contentType: "application/x-www-form-urlencoded").errorCode == "missing_token")
            #expect(try await send(#"{"token":"x"}"#, contentType: "application/json").errorCode == "unsupported_content_type")
            // Longer than the 8 KiB an authorization request may be, shorter than a body: read, and inactive.
            let long = try await send("token=" + String(repeating: "a", count: 20_000))
            #expect(long.status == .ok && long.text == #"{"active":false}"#, "\(long.text.prefix(80))")
        }
    }

    @Test("while off, the routes answer 404 not_enabled")
    func disabled() async throws {
        try await TestServer.run { api in
            let session = try await api.register("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            #expect(try await api.send(.post, "/api/token", token: session.token).errorCode == "not_enabled")
            #expect(try await api.send(.get, "/.well-known/jwks.json").errorCode == "not_enabled")
            #expect(try await Self.introspect(api, session.token).errorCode == "not_enabled")
        }
    }
}
