import _CryptoExtras
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
///
/// The OpenID Connect provider signs with the same keys: its access tokens (ES256, the client as
/// audience, the grant as `sid`) and its id_tokens — ES256, or RS256 for the clients that ask for it
/// (`lk-rs256-p`, 2048-bit RSA keys on the same periods, made and published only once some client wants
/// them: making one takes a noticeable fraction of a second). Whether one does is `rsaWanted`'s answer
/// (the provider's `OIDCClientFacts`, remembered for 30 s: every JWKS fetch asked the database before), or
/// this instance having signed an RS256 id_token: from then on the RSA keys stay. What is OpenID Connect's
/// own — its tokens' issue, the hints, which grant a token stands for — is `OIDC/AccessTokenIssuer+OIDC.swift`
/// and `OIDCTokenIntrospection`: this folder names no OpenID Connect type.
actor AccessTokenIssuer {
    struct Settings: Sendable {
        var ttl: TimeInterval
        var keyLifetime: TimeInterval
        var issuer: String
        var audience: String?
        /// The OpenID Connect issuer (`iss` of its tokens); nil while the provider is off.
        var oidcIssuer: String? = nil
    }

    /// A verified token and what it stands for: a session (`POST /api/token`'s tokens), or, for a token
    /// that names a `client_id`, whatever `clientTokens` (the OpenID Connect provider) found it active for
    /// (its grant or the client itself: `OIDCTokenIntrospection`, which the provider's endpoints use).
    struct Introspection: Sendable {
        let claims: AccessTokenClaims
        let session: SessionDetails?
    }

    struct Keys {
        let period: Int64
        let collection: JWTKeyCollection
        /// Public keys by period: p−1, p, p+1.
        let published: [(period: Int64, key: P256.Signing.PublicKey)]
        /// The RSA ones, when some client wants RS256 id_tokens; empty otherwise.
        let publishedRSA: [(period: Int64, key: _RSA.Signing.PublicKey)]
    }

    static let keyNamePrefix = "access-token-es256-"
    static let rsaKeyNamePrefix = "access-token-rs256-"

    let settings: Settings
    let store: Store
    /// Where the signing keys are kept, wrapped (`ServerKeyVault`).
    private let vault: ServerKeyVault
    let now: @Sendable () -> Date
    private var keys: Keys?
    /// Once a client wanted RS256, RSA keys are kept for every later period too.
    private(set) var wantsRSA = false
    /// Whether a token issued to a client is still active: the OpenID Connect provider's answer (its
    /// grants and clients), nil without it. Given, not known: this folder names no OpenID Connect type.
    private let clientTokens: (any ClientTokenRegistry)?
    /// Whether some client wants RS256 id_tokens (the provider's `OIDCClientFacts`, remembered 30 s).
    let rsaWanted: @Sendable () async throws -> Bool

    init(
        store: Store, vault: ServerKeyVault, settings: Settings, now: @escaping @Sendable () -> Date,
        clientTokens: (any ClientTokenRegistry)? = nil, rsaWanted: @escaping @Sendable () async throws -> Bool = { false }
    ) {
        self.store = store
        self.vault = vault
        self.settings = settings
        self.now = now
        self.clientTokens = clientTokens
        self.rsaWanted = rsaWanted
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
    /// lifetime checked — and whose session (or, for a token issued to a client, grant or client:
    /// `clientTokens`) is still open; nil for anything else (RFC 7662 says only "not active", never why: a
    /// scanner learns nothing).
    func introspect(_ token: String) async throws -> Introspection? {
        let date = now()
        guard let claims = try await verified(token, at: date) else { return nil }
        if claims.clientId != nil {
            guard let clientTokens, try await clientTokens.isActive(claims, at: date) else { return nil }
            return Introspection(claims: claims, session: nil)
        }
        guard claims.iss.value == settings.issuer,
              claims.aud?.value == settings.audience.map({ [$0] }),
              let prefix = Base64URL.decode(claims.sid), prefix.count == 16,
              let session = try await store.sessionDetails(hashPrefix: prefix, now: date),
              session.accountId == claims.sub.value
        else { return nil }
        return Introspection(claims: claims, session: session)
    }

    /// The claims of an ES256 access token this server signed, within its lifetime at `date`; whether
    /// what it stands for is still open is the caller's question.
    func verified(_ token: String, at date: Date) async throws -> AccessTokenClaims? {
        guard JWTHeaderCheck.algorithm(of: token) == "ES256" else { return nil }
        let keys = try await current(at: date)
        guard let claims = try? await keys.collection.verify(token, as: AccessTokenClaims.self),
              claims.exp.value > date, claims.iat.value <= date.addingTimeInterval(60)
        else { return nil }
        return claims
    }

    /// Signs an id_token (or a logout token, `type` `logout+jwt`) with `algorithm` (`ES256` or `RS256`,
    /// the client's choice), with the keys the JWKS publishes.
    func sign(_ claims: some JWTPayload, algorithm: String, type: String? = nil) async throws -> String {
        let rsa = algorithm == "RS256"
        let keys = try await current(at: now(), rsa: rsa)
        var header = JWTHeader()
        header.typ = type
        return try await keys.collection.sign(
            claims, kid: JWKIdentifier(string: rsa ? Self.rsaKid(keys.period) : Self.kid(keys.period)), header: header)
    }

    /// The JSON Web Key Set: the public keys of the previous, current and next period (RSA ones too
    /// once some client wants RS256 id_tokens: `rsaWanted`, without a database query while the
    /// provider's facts remember).
    func jwks() async throws -> JWKSDocument {
        var rsa = wantsRSA
        if !rsa { rsa = try await rsaWanted() }
        let keys = try await current(at: now(), rsa: rsa)
        let ec = keys.published.map { period, key in
            let raw = Array(key.rawRepresentation)
            return JWKSDocument.Key(
                kty: "EC", crv: "P-256", x: Base64URL.encode(Array(raw.prefix(32))), y: Base64URL.encode(Array(raw.suffix(32))),
                kid: Self.kid(period), alg: "ES256", use: "sig")
        }
        let rsaKeys = try keys.publishedRSA.map { period, key in
            let primitives = try key.getKeyPrimitives()
            return JWKSDocument.Key(
                kty: "RSA", n: Base64URL.encode(Array(primitives.modulus)), e: Base64URL.encode(Array(primitives.publicExponent)),
                kid: Self.rsaKid(period), alg: "RS256", use: "sig")
        }
        return JWKSDocument(keys: ec + rsaKeys)
    }

    /// The keys of `date`'s period (with RSA ones from the first `rsa` on), made or read once a period.
    func current(at date: Date, rsa: Bool = false) async throws -> Keys {
        if rsa { wantsRSA = true }
        let period = Int64((date.timeIntervalSince1970 / settings.keyLifetime).rounded(.down))
        if let keys, keys.period == period, !wantsRSA || !keys.publishedRSA.isEmpty { return keys }
        let collection = JWTKeyCollection.gated()
        var published: [(Int64, P256.Signing.PublicKey)] = []
        var publishedRSA: [(Int64, _RSA.Signing.PublicKey)] = []
        for each in [period - 1, period, period + 1] {
            let raw = try await vault.key(named: Self.keyName(each), byteCount: 32)
            let key = try P256.Signing.PrivateKey(rawRepresentation: raw)
            await collection.add(ecdsa: try ES256PrivateKey(backing: key), kid: JWKIdentifier(string: Self.kid(each)))
            published.append((each, key.publicKey))
            if wantsRSA {
                let der = try await vault.key(named: Self.rsaKeyName(each)) {
                    // 2048 bits: what RS256 verifiers expect; the generation cannot fail short of memory.
                    (try? _RSA.Signing.PrivateKey(keySize: .bits2048)).map { Array($0.derRepresentation) } ?? []
                }
                let key = try _RSA.Signing.PrivateKey(derRepresentation: der)
                await collection.add(rsa: try Insecure.RSA.PrivateKey(backing: key), digestAlgorithm: .sha256, kid: JWKIdentifier(string: Self.rsaKid(each)))
                publishedRSA.append((each, key.publicKey))
            }
        }
        try await store.deleteServerKeys(prefix: Self.keyNamePrefix, before: Self.keyName(period - 1))
        try await store.deleteServerKeys(prefix: Self.rsaKeyNamePrefix, before: Self.rsaKeyName(period - 1))
        let loaded = Keys(period: period, collection: collection, published: published, publishedRSA: publishedRSA)
        keys = loaded
        return loaded
    }

    static func kid(_ period: Int64) -> String { "lk-es256-\(period)" }
    static func rsaKid(_ period: Int64) -> String { "lk-rs256-\(period)" }

    /// Zero-padded, so that names sort as their periods do.
    static func keyName(_ period: Int64) -> String { keyNamePrefix + padded(period) }
    static func rsaKeyName(_ period: Int64) -> String { rsaKeyNamePrefix + padded(period) }

    private static func padded(_ period: Int64) -> String {
        String(repeating: "0", count: max(0, 12 - String(period).count)) + String(period)
    }
}

/// `/.well-known/jwks.json` (RFC 7517).
struct JWKSDocument: Codable, Sendable, Equatable, APIResponseBody {
    /// An EC key (`crv`, `x`, `y`) or an RSA one (`n`, `e`); the other's members are left out.
    struct Key: Codable, Sendable, Equatable {
        let kty: String
        var crv: String? = nil
        var x: String? = nil
        var y: String? = nil
        var n: String? = nil
        var e: String? = nil
        let kid: String
        let alg: String
        let use: String
    }

    let keys: [Key]
}
