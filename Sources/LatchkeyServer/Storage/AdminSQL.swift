/// The statements of operating Latchkey (`Store+Admin.swift`): finding accounts, disabling them, admin keys.
extension SQL {
    /// An account with what an operator looks at first: how many passkeys, the last login with any, and
    /// its sessions live at `now` (the placeholder that holds the time).
    static func accountSummaryColumns(now: String) -> String {
        """
        a.id, a.user_handle, a.display_name, a.credo, a.created_at, a.updated_at, a.disabled_at,
        (SELECT count(*) FROM credentials c WHERE c.account_id = a.id) AS passkeys,
        (SELECT max(c.last_used_at) FROM credentials c WHERE c.account_id = a.id) AS last_login_at,
        (SELECT count(*) FROM sessions s WHERE s.account_id = a.id AND s.expires_at > \(now)) AS sessions
        """
    }
    /// One account's summary by its id ($1), sessions live at $2: a primary-key look-up.
    static let accountSummary = StoreStatement("SELECT \(accountSummaryColumns(now: "$2")) FROM accounts a WHERE a.id = $1")
    /// Accounts after id $1 (paging), in id order, at most $2; matching text $3 (empty: any) as the whole
    /// id, or in the display name or a passkey's name ($4, a LIKE pattern, lower case); holding a passkey
    /// with AAGUID $5 when $6 = 1; last login (any passkey's) at or after $7 and before $8 (milliseconds;
    /// never signed in counts as 0). $9 is now, for counting live sessions.
    static let searchAccounts = StoreStatement("""
        SELECT \(accountSummaryColumns(now: "$9")) FROM accounts a
        WHERE a.id > $1
          AND ($3 = '' OR a.id = $3 OR lower(a.display_name) LIKE $4 ESCAPE '\\'
               OR EXISTS (SELECT 1 FROM credentials c WHERE c.account_id = a.id AND lower(c.name) LIKE $4 ESCAPE '\\'))
          AND ($6 = 0 OR EXISTS (SELECT 1 FROM credentials c WHERE c.account_id = a.id AND c.aaguid = $5))
          AND (SELECT coalesce(max(c.last_used_at), 0) FROM credentials c WHERE c.account_id = a.id) >= $7
          AND (SELECT coalesce(max(c.last_used_at), 0) FROM credentials c WHERE c.account_id = a.id) < $8
        ORDER BY a.id LIMIT $2
        """)
    static let setAccountDisabled = StoreStatement("UPDATE accounts SET disabled_at = $2, updated_at = $3 WHERE id = $1 RETURNING id")
    /// An account's live sessions, newest first: never the token's hash, only its first 8 bytes (the
    /// access tokens' `sid`), enough to tell sessions apart.
    static let accountSessions = StoreStatement("""
        SELECT substr(token_hash, 1, 8) AS sid, created_at, expires_at, credential_id, user_verified
        FROM sessions WHERE account_id = $1 AND expires_at > $2 ORDER BY created_at DESC
        """)
    static let deleteCredentialAllSessions = StoreStatement(
        "DELETE FROM sessions WHERE account_id = $2 AND credential_id = $1 RETURNING account_id")

    // MARK: Admin keys

    static let adminKeyColumns = "id, secret_hash, scope, name, created_at, created_by, last_used_at, revoked_at"
    static let insertAdminKey = StoreStatement("""
        INSERT INTO admin_keys (\(adminKeyColumns)) VALUES ($1, $2, $3, $4, $5, $6, NULL, NULL)
        """)
    static let adminKey = StoreStatement("SELECT \(adminKeyColumns) FROM admin_keys WHERE id = $1")
    static let adminKeys = StoreStatement("SELECT \(adminKeyColumns) FROM admin_keys ORDER BY created_at, id")
    static let revokeAdminKey = StoreStatement(
        "UPDATE admin_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id")
    /// Records a key's use, at most once a minute ($3: a minute before now), so that a busy script does
    /// not turn every read into a write.
    static let touchAdminKey = StoreStatement("""
        UPDATE admin_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $3) RETURNING id
        """)
}
