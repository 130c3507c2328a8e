import Crypto
import Foundation
import JWTKit
import WebAuthn

/// Client authentication by `private_key_jwt` (RFC 7523 §2.2 and §3, OpenID Connect Core §9): the client
/// sends `client_assertion_type=urn:ietf:params:oauth:client-assertion-type:jwt-bearer` and a JWT it signed
/// with a key of the JWKS an operator registered for it. Checked here, before anything it asks for:
/// the header's `alg` is one of `algorithms` (never `none` or an HMAC, which a public key would make a
/// shared secret of); the signature verifies with the client's keys (by `kid`, or its first key); `iss` and
/// `sub` are the client; `aud` names this server — its issuer or one of its endpoints that take client
/// authentication; `exp` is in the future and at most `maxLifetime` ahead (so the replay cache below is
/// bounded in time); and `jti` was never seen for this client: its SHA-256 is kept until `exp`, so each
/// assertion authenticates once, and a client holds at most `liveLimit` of them.
enum OIDCClientAssertion {
    static let type = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer"
    static let algorithms = ["ES256", "ES384", "RS256", "PS256", "EdDSA"]
    /// An hour: what libraries sign by default (authlib's `exp` is `iat` + 3600).
    static let maxLifetime: TimeInterval = 60 * 60
    static let maxBytes = 8 * 1024
    static let liveLimit = 10_000

    /// What a client assertion says (RFC 7523 §3). The times are checked against the provider's clock by
    /// `authenticate`, not by JWTKit's.
    struct Claims: JWTPayload {
        let iss: IssuerClaim
        let sub: SubjectClaim
        let aud: AudienceClaim
        let exp: ExpirationClaim
        let jti: IDClaim
        var nbf: NotBeforeClaim? = nil

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    /// The client `assertion` authenticates, or why not (`invalid_client`, 401). `clientId` is the
    /// request's `client_id`, which must name the same client when it is sent (RFC 7521 §4.2).
    static func authenticate(
        _ assertion: String, clientId: String?, provider: OIDCProvider
    ) async throws -> Result<OIDCClientRecord, OAuthError> {
        func refuse(_ why: String) -> Result<OIDCClientRecord, OAuthError> { .failure(.invalidClient(why, basic: false)) }
        guard assertion.utf8.count <= maxBytes, let header = part(0, of: assertion), let payload = part(1, of: assertion) else {
            return refuse("client_assertion is not a JWT.")
        }
        guard case .string(let algorithm)? = header["alg"], algorithms.contains(algorithm) else {
            return refuse("client_assertion must be signed with one of \(algorithms.joined(separator: ", ")).")
        }
        // The client is the one the (not yet verified) assertion names; its keys then verify that claim.
        guard case .string(let subject)? = payload["sub"], !subject.isEmpty, subject.utf8.count <= 128 else {
            return refuse("client_assertion names no client (sub).")
        }
        if let clientId, clientId != subject { return refuse("client_id differs from the client_assertion's sub.") }
        guard let client = try await provider.store.oidcClients.client(id: subject), client.jwks != nil || client.jwksURI != nil else {
            return refuse("No such client, or it has no registered keys (private_key_jwt).")
        }
        // Registered keys, or the ones it publishes (fetched and kept for minutes: `OIDCClientKeySets`).
        var registered = client.jwks
        if registered == nil, let uri = client.jwksURI { registered = await provider.keySets.jwks(at: uri, now: provider.now()) }
        guard let jwks = registered else { return refuse("The client's published keys (jwks_uri) could not be fetched.") }
        let keys = JWTKeyCollection.gated()
        guard (try? await keys.add(jwksJSON: jwks)) != nil, let claims = try? await keys.verify(assertion, as: Claims.self) else {
            return refuse("client_assertion's signature does not verify with the client's registered keys.")
        }
        let now = provider.now()
        let issuer = provider.settings.issuer
        let audiences: Set<String> = [issuer, issuer + "/oidc/token", issuer + "/oidc/revoke", issuer + "/oidc/device"]
        guard claims.iss.value == client.id, claims.sub.value == client.id else { return refuse("client_assertion's iss and sub must both be the client id.") }
        guard !audiences.isDisjoint(with: claims.aud.value) else { return refuse("client_assertion's aud must be this server's token endpoint or issuer.") }
        guard claims.exp.value > now else { return refuse("client_assertion has expired.") }
        guard claims.exp.value <= now.addingTimeInterval(maxLifetime + 60) else {
            return refuse("client_assertion's exp is more than \(Int(maxLifetime / 60)) minutes ahead.")
        }
        if let nbf = claims.nbf, nbf.value > now.addingTimeInterval(60) { return refuse("client_assertion is not valid yet (nbf).") }
        guard !claims.jti.value.isEmpty, claims.jti.value.utf8.count <= 256 else { return refuse("client_assertion needs a jti.") }
        guard try await provider.store.oidcClients.useAssertion(
            clientId: client.id, jtiHash: SecretDigest.of(claims.jti.value), expiresAt: claims.exp.value, at: now, liveLimit: liveLimit)
        else { return refuse("client_assertion was used before (its jti); sign a new one for each request.") }
        return .success(client)
    }

    /// The JSON object of a JWT's header (0) or payload (1), behind small bounds, without verifying it.
    private static func part(_ index: Int, of token: String) -> JSONObject? {
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, parts[index].count <= 6 * 1024, let bytes = Base64URL.decode(String(decoding: parts[index], as: UTF8.self)),
              let value = try? JSONValue.parse(bytes), case .object(let object) = value
        else { return nil }
        return object
    }
}
