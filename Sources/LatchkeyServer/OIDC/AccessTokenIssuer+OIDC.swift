import Foundation
import JWTKit
import WebAuthn

/// What the OpenID Connect provider signs and checks with the access tokens' keys (`AccessTokenIssuer`):
/// its access tokens (for a grant, or for a client itself), the id_token hints of logout requests, and
/// which grant or client a token stands for.
extension AccessTokenIssuer {
    /// An access token for an OpenID Connect client: the Latchkey JWT, with the client as audience and
    /// `client_id`, the grant's id as `sid` (introspection and UserInfo find the grant by it, so revoking
    /// the grant ends the token) and its scopes.
    func issue(for grant: OIDCGrantRecord) async throws -> (token: String, expiresIn: Int) {
        let issued = Date(timeIntervalSince1970: now().timeIntervalSince1970.rounded(.down))
        let keys = try await current(at: issued)
        let claims = AccessTokenClaims(
            iss: IssuerClaim(value: settings.oidcIssuer ?? settings.issuer), sub: SubjectClaim(value: grant.accountId),
            aud: AudienceClaim(value: [grant.clientId]), exp: ExpirationClaim(value: issued + settings.ttl),
            iat: IssuedAtClaim(value: issued), authTime: Int64(grant.authTime.timeIntervalSince1970.rounded(.down)),
            amr: grant.amr, sid: grant.id, jti: IDClaim(value: Base64URL.encode(RandomBytes.make(16))),
            clientId: grant.clientId, scope: grant.scopes.joined(separator: " "))
        let token = try await keys.collection.sign(claims, kid: JWKIdentifier(string: Self.kid(keys.period)))
        return (token, Int(settings.ttl))
    }

    /// A client-credentials token (RFC 6749 §4.4): the client is its subject and audience, its `sid`
    /// the client's current generation, its scopes `scopes` (API scopes the operator gave the client);
    /// no `auth_time` or `amr`, as no person signed in.
    func issue(forClient client: OIDCClientRecord, scopes: [String]) async throws -> (token: String, expiresIn: Int) {
        let issued = Date(timeIntervalSince1970: now().timeIntervalSince1970.rounded(.down))
        let keys = try await current(at: issued)
        let claims = AccessTokenClaims(
            iss: IssuerClaim(value: settings.oidcIssuer ?? settings.issuer), sub: SubjectClaim(value: client.id),
            aud: AudienceClaim(value: [client.id]), exp: ExpirationClaim(value: issued + settings.ttl),
            iat: IssuedAtClaim(value: issued), authTime: nil, amr: nil, sid: client.credentialsGeneration,
            jti: IDClaim(value: Base64URL.encode(RandomBytes.make(16))), clientId: client.id, scope: scopes.joined(separator: " "))
        let token = try await keys.collection.sign(claims, kid: JWKIdentifier(string: Self.kid(keys.period)))
        return (token, Int(settings.ttl))
    }

    /// The claims of an id_token this server signed for some client, expired or not — what
    /// RP-initiated logout's `id_token_hint` is (its expiry does not matter there: Logout §2). Only
    /// `ES256` and `RS256` headers with one of the published keys' `kid` are considered.
    func verifyHint(_ token: String) async throws -> IDTokenClaims? {
        guard let algorithm = JWTHeaderCheck.algorithm(of: token), ["ES256", "RS256"].contains(algorithm) else { return nil }
        // Whether RSA keys exist is the clients' configuration's to decide, never a caller's header: an
        // anonymous hint headed RS256 made the server generate and publish three RSA keys (review 4, S4-13).
        // With no client on RS256, no id_token this server signed is RS256, so the hint is not one of ours.
        let rsa = algorithm == "RS256"
        if rsa, !wantsRSA, !(try await rsaWanted()) { return nil }
        let keys = try await current(at: now(), rsa: rsa)
        guard let claims = try? await keys.collection.verify(token, as: IDTokenClaims.self),
              claims.iss.value == settings.oidcIssuer
        else { return nil }
        return claims
    }

    /// The claims of a token issued to a client, with the grant or client it stands for while that is
    /// still active (`OIDCTokenIntrospection`); nil otherwise.
    func introspectForClients(_ token: String) async throws -> OIDCTokenIntrospection.Found? {
        let date = now()
        guard let claims = try await verified(token, at: date) else { return nil }
        return try await OIDCTokenIntrospection(store: store, issuer: settings.oidcIssuer).find(claims, at: date)
    }
}
