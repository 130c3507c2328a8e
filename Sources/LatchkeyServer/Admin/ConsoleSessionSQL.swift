import LatchkeyDatabase

/// The statements of the admin console's own sessions (`Store+ConsoleSessions`).
extension SQL {
    static let insertConsoleSession = StoreStatement("""
        INSERT INTO console_sessions (token_hash, account_id, credential_id, amr, created_at, expires_at, verified_at)
        VALUES ($1, $2, $3, $4, $5, $6, $5)
        """)
    /// A live console session of an enabled account that still holds the admin role, with the role's scopes.
    static let consoleSession = StoreStatement("""
        SELECT c.account_id, c.amr, c.created_at, c.expires_at, c.verified_at, r.scopes, a.display_name
        FROM console_sessions c JOIN admin_roles r ON r.account_id = c.account_id JOIN accounts a ON a.id = c.account_id
        WHERE c.token_hash = $1 AND c.expires_at > $2 AND a.disabled_at IS NULL
        """)
    /// A fresh user-verified assertion by the session's own account ($3).
    static let verifyConsoleSession = StoreStatement("""
        UPDATE console_sessions SET verified_at = $2 WHERE token_hash = $1 AND account_id = $3 AND expires_at > $2 RETURNING account_id
        """)
    static let deleteConsoleSession = StoreStatement("DELETE FROM console_sessions WHERE token_hash = $1 RETURNING account_id")
    static let deleteConsoleSessions = StoreStatement("DELETE FROM console_sessions WHERE account_id = $1 RETURNING account_id")
    static let purgeConsoleSessions = StoreStatement("DELETE FROM console_sessions WHERE expires_at <= $1 RETURNING account_id")
}
