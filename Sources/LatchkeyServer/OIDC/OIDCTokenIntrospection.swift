import Foundation
import WebAuthn

/// Which grant, or which client, an access token the provider issued stands for while it is still active:
/// the provider's own issuer and the client as audience; a client-credentials token (no `auth_time`)
/// while its client exists, may still use the grant, has the generation the token names (a rotated secret
/// draws a new one) and every scope it carries; any other while its grant is live, for the same client
/// and account. UserInfo and revocation read the grant or client; introspection only whether there is one
/// (`ClientTokenRegistry`, through `AccessTokenIssuer`).
struct OIDCTokenIntrospection: ClientTokenRegistry {
    let store: Store
    /// The provider's issuer (`iss` of its tokens); nil while the provider is off: then no token is its.
    let issuer: String?

    /// A token's claims with what they stand for: a grant, or (client credentials) the client.
    struct Found: Sendable {
        let claims: AccessTokenClaims
        let grant: OIDCGrantRecord?
        let client: OIDCClientRecord?
    }

    func find(_ claims: AccessTokenClaims, at date: Date) async throws -> Found? {
        guard let clientId = claims.clientId, let issuer, claims.iss.value == issuer, claims.aud?.value == [clientId] else { return nil }
        if claims.authTime == nil {
            guard claims.sub.value == clientId, let client = try await store.oidcClients.client(id: clientId),
                  client.allows(OIDCGrantType.clientCredentials), !client.isPublic, !client.credentialsGeneration.isEmpty,
                  ConstantTime.equal(Array(client.credentialsGeneration.utf8), Array(claims.sid.utf8)),
                  Set(OIDCClientRecord.list(claims.scope ?? "")).isSubset(of: Set(client.apiScopes))
            else { return nil }
            return Found(claims: claims, grant: nil, client: client)
        }
        guard let grant = try await store.oidcGrants.live(id: claims.sid, at: date),
              grant.clientId == clientId, grant.accountId == claims.sub.value
        else { return nil }
        return Found(claims: claims, grant: grant, client: nil)
    }

    func isActive(_ claims: AccessTokenClaims, at date: Date) async throws -> Bool {
        try await find(claims, at: date) != nil
    }
}
