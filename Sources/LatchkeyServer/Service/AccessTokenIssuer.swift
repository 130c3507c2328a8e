import Crypto
import Foundation
import JWTKit
import WebAuthn

/// Signs short-lived access tokens (JWT, ES256) for backends that check sign-ins themselves, publishes
/// the keys that verify them (JWKS), and verifies tokens for introspection.
///
/// Keys rotate by period: in period p (the time divided by the key lifetime) tokens are signed with key
/// `lk-es256-p`, which whichever instance first needs it makes and keeps in `server_keys` — every
/// instance signs with the same key, and a restart does not change it. The JWKS holds p−1 (tokens
/// signed just before a rotation stay valid for up to a token lifetime, which is never longer than a
/// period), p, and p+1 (published a period ahead, so a verifier that caches the JWKS knows a key
/// before the first token signed with it). Older keys are deleted: no valid token needs them. All three
/// are kept wrapped under the key file's key (`ServerKeyVault`): the next period's key must exist a
/// period ahead for its public half to be published, and a copy of the database alone cannot use it.
actor AccessTokenIssuer {
    struct Settings: Sendable {
        var ttl: TimeInterval
        var keyLifetime: TimeInterval
        var issuer: String
        var audience: String?
    }

    /// A verified token and the session it stands for.
    struct Introspection: Sendable {
        let claims: AccessTokenClaims
        let session: SessionDetails
    }

    private struct Keys {
        let period: Int64
        let collection: JWTKeyCollection
        /// Public keys by period: p−1, p, p+1.
        let published: [(period: Int64, key: P256.Signing.PublicKey)]
    }

    static let keyNamePrefix = "access-token-es256-"

    let settings: Settings
    private let store: Store
    /// Where the signing keys are kept, wrapped (`ServerKeyVault`).
    private let vault: ServerKeyVault
    private let now: @Sendable () -> Date
    private var keys: Keys?

    init(store: Store, vault: ServerKeyVault, settings: Settings, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.vault = vault
        self.settings = settings
        self.now = now
    }

    /// A token for `session`, valid for the configured lifetime from now.
    func issue(for session: SessionDetails) async throws -> (token: String, expiresIn: Int) {
        let issued = Date(timeIntervalSince1970: now().timeIntervalSince1970.rounded(.down))
        let keys = try await current(at: issued)
        let claims = AccessTokenClaims(
            iss: IssuerClaim(value: settings.issuer), sub: SubjectClaim(value: session.accountId),
            aud: settings.audience.map { AudienceClaim(value: [$0]) }, exp: ExpirationClaim(value: issued + settings.ttl),
            iat: IssuedAtClaim(value: issued), authTime: Int64(session.createdAt.timeIntervalSince1970.rounded(.down)),
            amr: AccessTokenClaims.methods(of: session), sid: Base64URL.encode(Array(session.tokenHash.prefix(16))),
            jti: IDClaim(value: Base64URL.encode(RandomBytes.make(16))))
        let token = try await keys.collection.sign(claims, kid: JWKIdentifier(string: Self.kid(keys.period)))
        return (token, Int(settings.ttl))
    }

    /// The claims of a token this server signed that is still valid — signature, issuer, audience and
    /// lifetime checked — and whose session is still open; nil for anything else (RFC 7662 says only
    /// "not active", never why: a scanner learns nothing).
    func introspect(_ token: String) async throws -> Introspection? {
        let date = now()
        let keys = try await current(at: date)
        guard let claims = try? await keys.collection.verify(token, as: AccessTokenClaims.self),
              claims.iss.value == settings.issuer,
              claims.aud?.value == settings.audience.map({ [$0] }),
              claims.exp.value > date, claims.iat.value <= date.addingTimeInterval(60),
              let prefix = Base64URL.decode(claims.sid), prefix.count == 16,
              let session = try await store.sessionDetails(hashPrefix: prefix, now: date),
              session.accountId == claims.sub.value
        else { return nil }
        return Introspection(claims: claims, session: session)
    }

    /// The JSON Web Key Set: the public keys of the previous, current and next period.
    func jwks() async throws -> JWKSDocument {
        let keys = try await current(at: now())
        return JWKSDocument(keys: keys.published.map { period, key in
            let raw = Array(key.rawRepresentation)
            return JWKSDocument.Key(
                kty: "EC", crv: "P-256", x: Base64URL.encode(Array(raw.prefix(32))), y: Base64URL.encode(Array(raw.suffix(32))),
                kid: Self.kid(period), alg: "ES256", use: "sig")
        })
    }

    private func current(at date: Date) async throws -> Keys {
        let period = Int64((date.timeIntervalSince1970 / settings.keyLifetime).rounded(.down))
        if let keys, keys.period == period { return keys }
        let collection = JWTKeyCollection.gated()
        var published: [(Int64, P256.Signing.PublicKey)] = []
        for each in [period - 1, period, period + 1] {
            let raw = try await vault.key(named: Self.keyName(each), byteCount: 32)
            let key = try P256.Signing.PrivateKey(rawRepresentation: raw)
            await collection.add(ecdsa: try ES256PrivateKey(backing: key), kid: JWKIdentifier(string: Self.kid(each)))
            published.append((each, key.publicKey))
        }
        try await store.deleteServerKeys(prefix: Self.keyNamePrefix, before: Self.keyName(period - 1))
        let loaded = Keys(period: period, collection: collection, published: published)
        keys = loaded
        return loaded
    }

    static func kid(_ period: Int64) -> String { "lk-es256-\(period)" }

    /// Zero-padded, so that names sort as their periods do.
    static func keyName(_ period: Int64) -> String {
        keyNamePrefix + String(repeating: "0", count: max(0, 12 - String(period).count)) + String(period)
    }
}

/// `/.well-known/jwks.json` (RFC 7517).
struct JWKSDocument: Codable, Sendable, Equatable, APIResponseBody {
    struct Key: Codable, Sendable, Equatable {
        let kty: String
        let crv: String
        let x: String
        let y: String
        let kid: String
        let alg: String
        let use: String
    }

    let keys: [Key]
}
