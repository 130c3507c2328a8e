import LatchkeyDatabase

/// The statements of email for recovery (`Store+Email.swift`): address verification tokens, the log of
/// mails sent (for their limits), and accounts found by a verified address.
extension SQL {
    static let mailSentToAccount = StoreStatement("SELECT count(*) AS sent FROM mail_log WHERE account_id = $1 AND sent_at > $2")
    static let mailSentToAddress = StoreStatement("SELECT count(*) AS sent FROM mail_log WHERE address_hash = $1 AND sent_at > $2")
    static let logMail = StoreStatement("""
        INSERT INTO mail_log (id, address_hash, account_id, purpose, sent_at) VALUES ($1, $2, $3, $4, $5)
        """)
    /// The account's tokens of purpose $2: a new one replaces them.
    static let deleteEmailTokens = StoreStatement("DELETE FROM email_tokens WHERE account_id = $1 AND purpose = $2")
    static let deleteAccountEmailTokens = StoreStatement("DELETE FROM email_tokens WHERE account_id = $1")
    static let insertEmailToken = StoreStatement("""
        INSERT INTO email_tokens (token_hash, account_id, email, purpose, created_at, expires_at, used_at)
        VALUES ($1, $2, $3, $4, $5, $6, NULL)
        """)
    /// The token's one use, by its own account, while it lives ($3: now); the address it was made for.
    static let useEmailToken = StoreStatement("""
        UPDATE email_tokens SET used_at = $3
        WHERE token_hash = $1 AND account_id = $2 AND purpose = 'verify' AND used_at IS NULL AND expires_at > $3
        RETURNING email
        """)
    /// Marks the address verified, if it is still the account's ($3: now).
    static let markEmailVerified = StoreStatement("""
        UPDATE accounts SET email_verified = 1, updated_at = $3 WHERE id = $1 AND email = $2 RETURNING id
        """)
    /// Enabled accounts whose verified address is $1 (lower case), at most $2 of them.
    static let accountsByVerifiedEmail = StoreStatement("""
        SELECT id, display_name, email FROM accounts
        WHERE lower(email) = $1 AND email_verified = 1 AND disabled_at IS NULL ORDER BY id LIMIT $2
        """)
    static let purgeEmailTokens = StoreStatement("DELETE FROM email_tokens WHERE expires_at <= $1")
    static let purgeMailLog = StoreStatement("DELETE FROM mail_log WHERE sent_at <= $1")
}
