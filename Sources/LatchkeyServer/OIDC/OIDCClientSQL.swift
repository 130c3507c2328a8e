import LatchkeyDatabase

/// The OpenID Connect clients' statements (`Store+OIDCClients.swift`).
extension SQL {
    static let oidcClientColumns = """
        id, name, secret_hash, redirect_uris, post_logout_uris, id_token_alg, first_party, scopes, allowed_groups, \
        created_at, updated_at, created_by, grant_types, api_scopes, credentials_generation, jwks, backchannel_logout_uri, groups_claim, managed_by, jwks_uri, \
        logo_type
        """
    static let insertOIDCClient = StoreStatement("""
        INSERT INTO oidc_clients (\(oidcClientColumns), logo)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)
        ON CONFLICT (id) DO NOTHING RETURNING id
        """)
    static let oidcClient = StoreStatement("SELECT \(oidcClientColumns) FROM oidc_clients WHERE id = $1")
    static let oidcClients = StoreStatement("SELECT \(oidcClientColumns) FROM oidc_clients ORDER BY id")
    static let updateOIDCClient = StoreStatement("""
        UPDATE oidc_clients SET name = $2, redirect_uris = $3, post_logout_uris = $4, id_token_alg = $5, first_party = $6,
            scopes = $7, allowed_groups = $8, updated_at = $9, grant_types = $10, api_scopes = $11, credentials_generation = $12,
            jwks = $13, backchannel_logout_uri = $14, groups_claim = $15, managed_by = $16, jwks_uri = $17
        WHERE id = $1 RETURNING id
        """)
    /// A new secret digest ($2) and a new client-credentials generation ($4): the old secret's tokens end.
    static let setOIDCClientSecret = StoreStatement(
        "UPDATE oidc_clients SET secret_hash = $2, updated_at = $3, credentials_generation = $4 WHERE id = $1 RETURNING id")
    /// A client revoked one of its client-credentials tokens (RFC 7009): a new generation ($2) ends them all.
    static let setOIDCClientGeneration = StoreStatement(
        "UPDATE oidc_clients SET credentials_generation = $2 WHERE id = $1 AND credentials_generation = $3 RETURNING id")
    /// A rotated secret ends what the old one obtained: every live grant of the client ($2: now), so its
    /// refresh tokens are refused and its access tokens stop introspecting (they name the grant as `sid`).
    static let revokeOIDCClientGrants = StoreStatement(
        "UPDATE oidc_grants SET revoked_at = $2 WHERE client_id = $1 AND revoked_at IS NULL RETURNING id")
    /// A client assertion's `jti` ($2: its SHA-256) used once by client $1 until $3, unless it was used
    /// before (of two at once, one inserts) or the client holds $5 live ones ($4: now).
    static let insertOIDCClientAssertion = StoreStatement("""
        INSERT INTO oidc_client_assertions (client_id, jti_hash, expires_at)
        SELECT $1, $2, $3
        WHERE NOT EXISTS (SELECT 1 FROM oidc_client_assertions WHERE client_id = $1 AND jti_hash = $2)
          AND (SELECT count(*) FROM oidc_client_assertions WHERE client_id = $1 AND expires_at > $4) < $5
        ON CONFLICT (client_id, jti_hash) DO NOTHING
        RETURNING client_id
        """)
    /// Used assertions past their expiry ($1: now): a replay of one is refused by its `exp` by then.
    static let purgeOIDCClientAssertions = StoreStatement("DELETE FROM oidc_client_assertions WHERE expires_at <= $1 RETURNING client_id")
    /// A client's logo ($2: its bytes, NULL for none; $3: their type, '' for none), apart from its other
    /// settings: the ordinary reads and writes leave the bytes alone.
    static let setOIDCClientLogo = StoreStatement("UPDATE oidc_clients SET logo = $2, logo_type = $3 WHERE id = $1 RETURNING id")
    static let oidcClientLogo = StoreStatement("SELECT logo, logo_type FROM oidc_clients WHERE id = $1 AND logo IS NOT NULL")
    static let deleteOIDCClient = StoreStatement("DELETE FROM oidc_clients WHERE id = $1 RETURNING id")
}
