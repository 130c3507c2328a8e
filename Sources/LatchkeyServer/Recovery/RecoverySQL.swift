import LatchkeyDatabase

/// The recovery grants' statements (`Store+Recovery.swift`).
extension SQL {
    static let recoveryGrantColumns = """
        id, secret_hash, account_id, purpose, issued_at, expires_at, issued_by, exchanged_at, used_at, revoked_at, failed_attempts
        """
    static let insertRecoveryGrant = StoreStatement("""
        INSERT INTO recovery_grants (\(recoveryGrantColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, NULL, NULL, NULL, 0)
        ON CONFLICT (id) DO NOTHING RETURNING id
        """)
    static let recoveryGrant = StoreStatement("SELECT \(recoveryGrantColumns) FROM recovery_grants WHERE id = $1")
    static let accountRecoveryGrants = StoreStatement(
        "SELECT \(recoveryGrantColumns) FROM recovery_grants WHERE account_id = $1 ORDER BY issued_at DESC, id")
    static let recentRecoveryGrants = StoreStatement(
        "SELECT \(recoveryGrantColumns) FROM recovery_grants ORDER BY issued_at DESC, id LIMIT $1")
    /// Revokes the account's outstanding grants ($2: now) — issuing a new one replaces them (an expired one
    /// stays expired).
    static let revokeAccountRecoveryGrants = StoreStatement("""
        UPDATE recovery_grants SET revoked_at = $2
        WHERE account_id = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $2 RETURNING id
        """)
    static let revokeRecoveryGrant = StoreStatement("""
        UPDATE recovery_grants SET revoked_at = $2 WHERE id = $1 AND used_at IS NULL AND revoked_at IS NULL RETURNING account_id
        """)
    /// A wrong secret for grant $1: counted, and at $3 failures the grant is revoked ($2: now).
    static let failRecoveryGrant = StoreStatement("""
        UPDATE recovery_grants SET failed_attempts = failed_attempts + 1,
            revoked_at = CASE WHEN failed_attempts + 1 >= $3 AND revoked_at IS NULL THEN $2 ELSE revoked_at END
        WHERE id = $1 RETURNING failed_attempts
        """)
    /// The exchange: of any number of concurrent ones, the first marks the grant exchanged and the rest
    /// find it so ($2: now).
    static let exchangeRecoveryGrant = StoreStatement("""
        UPDATE recovery_grants SET exchanged_at = $2
        WHERE id = $1 AND exchanged_at IS NULL AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $2
        RETURNING account_id
        """)
    /// The grant's one use, in the transaction that adds its passkey ($2: now).
    static let useRecoveryGrant = StoreStatement("""
        UPDATE recovery_grants SET used_at = $2
        WHERE id = $1 AND exchanged_at IS NOT NULL AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $2
        RETURNING account_id
        """)
    static let insertRecoverySession = StoreStatement("""
        INSERT INTO sessions (token_hash, account_id, created_at, expires_at, credential_id, user_verified, method, recovery_grant)
        VALUES ($1, $2, $3, $4, NULL, 0, 'recovery', $5)
        """)
    static let deleteRecoveryGrantSessions = StoreStatement("DELETE FROM sessions WHERE recovery_grant = $1 RETURNING account_id")
}
