import LatchkeyDatabase

/// The statements of "Apps with access" (`Store+OIDCApps.swift`).
extension SQL {
    /// The account's consents, with each client's name and whether it has a logo (its type, '' for none).
    static let oidcAppConsents = StoreStatement("""
        SELECT s.client_id, c.name, c.logo_type, s.scopes, s.granted_at
        FROM oidc_consents s JOIN oidc_clients c ON c.id = s.client_id WHERE s.account_id = $1
        """)
    /// The account's grants still on record (the housekeeping purges them a day after they end), one row
    /// per client, aggregated by the database through `oidc_grants_by_account_client`: the first and the
    /// last authorization, and whether one is live ($2: now). (Folding every grant row in Swift cost 72 ms
    /// at 20 000 grants, on the event loop: review 4, S4-4.)
    static let oidcAppGrants = StoreStatement("""
        SELECT g.client_id, c.name, c.logo_type, min(g.created_at) AS first_at, max(g.created_at) AS last_at,
            max(CASE WHEN g.revoked_at IS NULL AND g.expires_at > $2 THEN 1 ELSE 0 END) AS live
        FROM oidc_grants g JOIN oidc_clients c ON c.id = g.client_id WHERE g.account_id = $1
        GROUP BY g.client_id, c.name, c.logo_type
        """)
    /// The scopes of the account's live grants ($2: now), each set once (at most `liveGrantsPerClient`
    /// grants per client are live).
    static let oidcAppLiveScopes = StoreStatement("""
        SELECT DISTINCT client_id, scope FROM oidc_grants WHERE account_id = $1 AND revoked_at IS NULL AND expires_at > $2
        """)
    /// Each client's last refresh for the account.
    static let oidcAppRefreshes = StoreStatement("""
        SELECT g.client_id, max(r.issued_at) AS refreshed_at
        FROM oidc_refresh_tokens r JOIN oidc_grants g ON g.id = r.grant_id WHERE g.account_id = $1 GROUP BY g.client_id
        """)
    static let oidcClientName = StoreStatement("SELECT name FROM oidc_clients WHERE id = $1")
    static let liveOIDCAppGrants = StoreStatement("""
        SELECT count(*) AS n FROM oidc_grants WHERE account_id = $1 AND client_id = $2 AND revoked_at IS NULL AND expires_at > $3
        """)
    static let deleteOIDCConsent = StoreStatement("DELETE FROM oidc_consents WHERE account_id = $1 AND client_id = $2 RETURNING client_id")
    /// Every grant of the account for the client ($3: now); their refresh and access tokens stop with them.
    static let revokeOIDCAppGrants = StoreStatement("""
        UPDATE oidc_grants SET revoked_at = $3 WHERE account_id = $1 AND client_id = $2 AND revoked_at IS NULL RETURNING id
        """)
}
