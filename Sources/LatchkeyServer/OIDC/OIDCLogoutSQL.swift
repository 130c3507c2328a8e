import LatchkeyDatabase

/// The back-channel logout outbox's statements (`Store+OIDCLogout.swift`).
extension SQL {
    /// The clients (with a back-channel logout URI) that session $1 signed the person in to, and the account.
    static let oidcLogoutTargetsOfSession = StoreStatement("""
        SELECT DISTINCT g.client_id, g.account_id FROM oidc_grants g JOIN oidc_clients c ON c.id = g.client_id
        WHERE g.session_hash = $1 AND c.backchannel_logout_uri <> ''
        """)
    /// The same for every open session of account $1: each client with the session it signed in from.
    static let oidcLogoutTargetsOfAccount = StoreStatement("""
        SELECT DISTINCT g.client_id, g.session_hash FROM oidc_grants g
        JOIN oidc_clients c ON c.id = g.client_id JOIN sessions s ON s.token_hash = g.session_hash
        WHERE g.account_id = $1 AND c.backchannel_logout_uri <> ''
        """)
    /// The same for the sessions of account $1 that passkey $2 opened, but session $3.
    static let oidcLogoutTargetsOfCredential = StoreStatement("""
        SELECT DISTINCT g.client_id, g.session_hash FROM oidc_grants g
        JOIN oidc_clients c ON c.id = g.client_id JOIN sessions s ON s.token_hash = g.session_hash
        WHERE g.account_id = $1 AND s.account_id = $1 AND s.credential_id = $2 AND s.token_hash <> $3 AND c.backchannel_logout_uri <> ''
        """)
    /// Every client (with a back-channel logout URI) account $1 gave access to: a consent or a live grant.
    static let oidcLogoutClientsOfAccount = StoreStatement("""
        SELECT c.id AS client_id FROM oidc_clients c
        WHERE c.backchannel_logout_uri <> ''
          AND (EXISTS (SELECT 1 FROM oidc_consents k WHERE k.account_id = $1 AND k.client_id = c.id)
               OR EXISTS (SELECT 1 FROM oidc_grants g WHERE g.account_id = $1 AND g.client_id = c.id AND g.revoked_at IS NULL))
        ORDER BY c.id
        """)
    static let purgeOIDCLogouts = StoreStatement("DELETE FROM oidc_logout_outbox RETURNING jti")
    static let oidcClientHasBackchannel = StoreStatement(
        "SELECT id FROM oidc_clients WHERE id = $1 AND backchannel_logout_uri <> ''")
    static let insertOIDCLogout = StoreStatement("""
        INSERT INTO oidc_logout_outbox (jti, client_id, account_id, sid, created_at, next_attempt_at, attempts)
        VALUES ($1, $2, $3, $4, $5, $5, 0)
        """)
    /// Claims up to $3 logout tokens due by $1, each leased until $2 (as `claimWebhooksOnPostgres`:
    /// rows another instance holds are skipped).
    static let claimOIDCLogoutsOnPostgres = StoreStatement("""
        UPDATE oidc_logout_outbox o SET next_attempt_at = $2, attempts = o.attempts + 1
        FROM (SELECT jti FROM oidc_logout_outbox WHERE next_attempt_at <= $1
              ORDER BY created_at, jti LIMIT $3 FOR UPDATE SKIP LOCKED) due
        WHERE o.jti = due.jti
        RETURNING o.jti, o.client_id, o.account_id, o.sid, o.attempts
        """)
    static let claimOIDCLogoutsOnSQLite = StoreStatement("""
        UPDATE oidc_logout_outbox SET next_attempt_at = $2, attempts = attempts + 1
        WHERE jti IN (SELECT jti FROM oidc_logout_outbox WHERE next_attempt_at <= $1 ORDER BY created_at, jti LIMIT $3)
        RETURNING jti, client_id, account_id, sid, attempts
        """)
    static let deleteOIDCLogout = StoreStatement("DELETE FROM oidc_logout_outbox WHERE jti = $1")
    static let retryOIDCLogout = StoreStatement("UPDATE oidc_logout_outbox SET next_attempt_at = $2, last_error = $3 WHERE jti = $1")
    static let countOIDCLogouts = StoreStatement("SELECT count(*) AS n FROM oidc_logout_outbox")
}
