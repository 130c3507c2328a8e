import LatchkeyDatabase

/// The custom claims' statements (`Store+OIDCClaims.swift`).
extension SQL {
    static let oidcAccountClaims = StoreStatement(
        "SELECT name, value, scope, updated_at FROM oidc_account_claims WHERE account_id = $1 ORDER BY name")
    static let oidcGroupClaims = StoreStatement(
        "SELECT name, value, scope, updated_at FROM oidc_group_claims WHERE group_name = $1 ORDER BY name")
    /// The claims of the groups in the space-separated $1 — a superset (`_` matches any character in
    /// LIKE), which the caller narrows to the exact names.
    static let oidcClaimsOfGroups = StoreStatement("""
        SELECT group_name, name, value, scope, updated_at FROM oidc_group_claims
        WHERE (' ' || $1 || ' ') LIKE ('% ' || group_name || ' %') ORDER BY group_name, name
        """)
    static let countOIDCAccountClaims = StoreStatement(
        "SELECT count(*) AS n FROM oidc_account_claims WHERE account_id = $1 AND name <> $2")
    static let countOIDCGroupClaims = StoreStatement(
        "SELECT count(*) AS n FROM oidc_group_claims WHERE group_name = $1 AND name <> $2")
    static let upsertOIDCAccountClaim = StoreStatement("""
        INSERT INTO oidc_account_claims (account_id, name, value, scope, updated_at) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (account_id, name) DO UPDATE SET value = excluded.value, scope = excluded.scope, updated_at = excluded.updated_at
        """)
    static let upsertOIDCGroupClaim = StoreStatement("""
        INSERT INTO oidc_group_claims (group_name, name, value, scope, updated_at) VALUES ($1, $2, $3, $4, $5)
        ON CONFLICT (group_name, name) DO UPDATE SET value = excluded.value, scope = excluded.scope, updated_at = excluded.updated_at
        """)
    static let deleteOIDCAccountClaim = StoreStatement(
        "DELETE FROM oidc_account_claims WHERE account_id = $1 AND name = $2 RETURNING name")
    static let deleteOIDCGroupClaim = StoreStatement(
        "DELETE FROM oidc_group_claims WHERE group_name = $1 AND name = $2 RETURNING name")
}
