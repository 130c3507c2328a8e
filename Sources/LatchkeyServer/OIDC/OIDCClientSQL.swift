import LatchkeyDatabase

/// The OpenID Connect clients' statements (`Store+OIDCClients.swift`).
extension SQL {
    static let oidcClientColumns = """
        id, name, secret_hash, redirect_uris, post_logout_uris, id_token_alg, first_party, scopes, allowed_groups, \
        created_at, updated_at, created_by
        """
    static let insertOIDCClient = StoreStatement("""
        INSERT INTO oidc_clients (\(oidcClientColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
        ON CONFLICT (id) DO NOTHING RETURNING id
        """)
    static let oidcClient = StoreStatement("SELECT \(oidcClientColumns) FROM oidc_clients WHERE id = $1")
    static let oidcClients = StoreStatement("SELECT \(oidcClientColumns) FROM oidc_clients ORDER BY id")
    static let updateOIDCClient = StoreStatement("""
        UPDATE oidc_clients SET name = $2, redirect_uris = $3, post_logout_uris = $4, id_token_alg = $5, first_party = $6,
            scopes = $7, allowed_groups = $8, updated_at = $9
        WHERE id = $1 RETURNING id
        """)
    static let setOIDCClientSecret = StoreStatement("UPDATE oidc_clients SET secret_hash = $2, updated_at = $3 WHERE id = $1 RETURNING id")
    /// A rotated secret ends what the old one obtained: every live grant of the client ($2: now), so its
    /// refresh tokens are refused and its access tokens stop introspecting (they name the grant as `sid`).
    static let revokeOIDCClientGrants = StoreStatement(
        "UPDATE oidc_grants SET revoked_at = $2 WHERE client_id = $1 AND revoked_at IS NULL RETURNING id")
    static let deleteOIDCClient = StoreStatement("DELETE FROM oidc_clients WHERE id = $1 RETURNING id")
}
