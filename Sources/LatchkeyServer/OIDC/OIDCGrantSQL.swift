import LatchkeyDatabase

/// The OpenID Connect grants' statements (`Store+OIDCGrants.swift`).
extension SQL {
    static let oidcGrantColumns = """
        id, client_id, account_id, session_hash, scope, nonce, auth_time, amr, created_at, expires_at, revoked_at
        """
    static let insertOIDCGrant = StoreStatement("""
        INSERT INTO oidc_grants (\(oidcGrantColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL)
        """)
    static let insertOIDCCode = StoreStatement("""
        INSERT INTO oidc_codes (code_hash, grant_id, redirect_uri, code_challenge, expires_at, used_at) VALUES ($1, $2, $3, $4, $5, NULL)
        """)
    /// Consent is kept per account and client, the union of what was ever allowed ($3: space-separated);
    /// `granted_at` stays the first consent's time ("Apps with access" says since when).
    static let upsertOIDCConsent = StoreStatement("""
        INSERT INTO oidc_consents (account_id, client_id, scopes, granted_at) VALUES ($1, $2, $3, $4)
        ON CONFLICT (account_id, client_id) DO UPDATE SET scopes = excluded.scopes
        """)
    static let oidcConsent = StoreStatement("SELECT scopes FROM oidc_consents WHERE account_id = $1 AND client_id = $2")
    /// A code with its grant, and whether the grant's account is disabled.
    static let oidcCodeWithGrant = StoreStatement("""
        SELECT c.redirect_uri, c.code_challenge, c.expires_at AS code_expires_at, c.used_at,
            g.id, g.client_id, g.account_id, g.session_hash, g.scope, g.nonce, g.auth_time, g.amr, g.created_at, g.expires_at, g.revoked_at,
            a.disabled_at
        FROM oidc_codes c JOIN oidc_grants g ON g.id = c.grant_id JOIN accounts a ON a.id = g.account_id
        WHERE c.code_hash = $1
        """)
    /// The code's one use ($2: now): of concurrent exchanges, one marks it and the rest find it used.
    static let useOIDCCode = StoreStatement("UPDATE oidc_codes SET used_at = $2 WHERE code_hash = $1 AND used_at IS NULL RETURNING grant_id")
    static let revokeOIDCGrant = StoreStatement(
        "UPDATE oidc_grants SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING account_id, client_id")
    static let extendOIDCGrant = StoreStatement("UPDATE oidc_grants SET expires_at = $2 WHERE id = $1")
    static let insertOIDCRefreshToken = StoreStatement(
        "INSERT INTO oidc_refresh_tokens (token_hash, grant_id, issued_at, used_at) VALUES ($1, $2, $3, NULL)")
    static let oidcRefreshWithGrant = StoreStatement("""
        SELECT r.used_at,
            g.id, g.client_id, g.account_id, g.session_hash, g.scope, g.nonce, g.auth_time, g.amr, g.created_at, g.expires_at, g.revoked_at,
            a.disabled_at
        FROM oidc_refresh_tokens r JOIN oidc_grants g ON g.id = r.grant_id JOIN accounts a ON a.id = g.account_id
        WHERE r.token_hash = $1
        """)
    static let useOIDCRefreshToken = StoreStatement(
        "UPDATE oidc_refresh_tokens SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL RETURNING grant_id")
    static let oidcGrantWithAccount = StoreStatement("""
        SELECT g.id, g.client_id, g.account_id, g.session_hash, g.scope, g.nonce, g.auth_time, g.amr, g.created_at, g.expires_at,
            g.revoked_at, a.disabled_at
        FROM oidc_grants g JOIN accounts a ON a.id = g.account_id WHERE g.id = $1
        """)
    /// RP-initiated logout: the session's grants that were only for while it lasts ($2: now; offline ones
    /// outlive the browser session by design).
    static let revokeSessionOIDCGrants = StoreStatement("""
        UPDATE oidc_grants SET revoked_at = $2
        WHERE session_hash = $1 AND revoked_at IS NULL AND ' ' || scope || ' ' NOT LIKE '% offline_access %' RETURNING id
        """)
    /// Grants a day past their expiry or their revocation, with their codes and refresh tokens (cascade).
    static let purgeOIDCGrants = StoreStatement("DELETE FROM oidc_grants WHERE expires_at < $1 OR revoked_at < $1 RETURNING id")
    /// The grants of account $1 for client $2 from session $3 whose code was never exchanged: a new
    /// authorization there replaces them (their codes go with them), so that repeating one adds no rows.
    static let deletePendingOIDCGrants = StoreStatement("""
        DELETE FROM oidc_grants WHERE account_id = $1 AND client_id = $2 AND session_hash = $3 AND revoked_at IS NULL
          AND EXISTS (SELECT 1 FROM oidc_codes c WHERE c.grant_id = oidc_grants.id AND c.used_at IS NULL)
        RETURNING id
        """)
    /// Revokes the oldest live grant of account $1 for client $2 ($4: now) when $3 are live.
    static let revokeOldestOIDCGrant = StoreStatement("""
        UPDATE oidc_grants SET revoked_at = $4 WHERE id = (
            SELECT id FROM oidc_grants WHERE account_id = $1 AND client_id = $2 AND revoked_at IS NULL AND expires_at > $4
            ORDER BY created_at, id LIMIT 1)
          AND (SELECT count(*) FROM oidc_grants WHERE account_id = $1 AND client_id = $2 AND revoked_at IS NULL AND expires_at > $4) >= $3
        RETURNING id
        """)
}
