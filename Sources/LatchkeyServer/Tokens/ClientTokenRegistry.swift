import Foundation

/// Whether an access token issued to a client (one whose claims name a `client_id`) still stands for
/// something open. Introspection (`POST /api/introspect`) answers for every token this server signs, but
/// only the OpenID Connect provider knows its grants and clients: it gives `AccessTokenIssuer` this
/// (`OIDCTokenIntrospection`), so that the access tokens' folder need not know the provider's types.
protocol ClientTokenRegistry: Sendable {
    /// `claims` are verified (signature, lifetime); whether their grant or client is still active at `date`.
    func isActive(_ claims: AccessTokenClaims, at date: Date) async throws -> Bool
}
