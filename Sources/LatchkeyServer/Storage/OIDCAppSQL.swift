/// The statements of "Apps with access" (`Store+OIDCApps.swift`).
extension SQL {
    /// The account's consents, with each client's name.
    static let oidcAppConsents = StoreStatement("""
        SELECT s.client_id, c.name, s.scopes, s.granted_at
        FROM oidc_consents s JOIN oidc_clients c ON c.id = s.client_id WHERE s.account_id = $1
        """)
    /// The account's grants still on record (the housekeeping purges them a day after they end), with
    /// each client's name and the grant's last refresh.
    static let oidcAppGrants = StoreStatement("""
        SELECT g.client_id, c.name, g.scope, g.created_at, g.expires_at, g.revoked_at,
            (SELECT max(r.issued_at) FROM oidc_refresh_tokens r WHERE r.grant_id = g.id) AS refreshed_at
        FROM oidc_grants g JOIN oidc_clients c ON c.id = g.client_id WHERE g.account_id = $1
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
