import LatchkeyDatabase

/// The invitations' statements (`InvitationStore`).
enum InvitationSQL {
    static let columns = """
        id, secret_hash, account_id, username, email, group_names, max_uses, uses, created_at, expires_at, created_by, mailed_at, \
        revoked_at, failed_attempts, requester
        """
    static let insert = StoreStatement("""
        INSERT INTO invitations (\(columns)) VALUES ($1, $2, $3, $4, $5, $6, $7, 0, $8, $9, $10, NULL, NULL, 0, $11)
        ON CONFLICT (id) DO NOTHING RETURNING id
        """)
    /// Live invitations someone asked for by mail (`--signup-domain`), of requester $1 ($2: now).
    static let liveMailedOfRequester = StoreStatement("""
        SELECT count(*) AS n FROM invitations
        WHERE requester = $1 AND created_by = 'email' AND uses = 0 AND revoked_at IS NULL AND expires_at > $2
        """)
    /// … and of everyone ($1: now).
    static let liveMailed = StoreStatement("""
        SELECT count(*) AS n FROM invitations WHERE created_by = 'email' AND uses = 0 AND revoked_at IS NULL AND expires_at > $1
        """)
    /// Invitations asked for by mail that were never used and expired before $1: nobody holds their link.
    static let purgeMailed = StoreStatement("DELETE FROM invitations WHERE created_by = 'email' AND uses = 0 AND expires_at <= $1")
    static let invitation = StoreStatement("SELECT \(columns) FROM invitations WHERE id = $1")
    static let recent = StoreStatement("SELECT \(columns) FROM invitations ORDER BY created_at DESC, id LIMIT $1")
    /// A live invitation that names username $1 ($2: now): the name is promised to its holder.
    static let liveWithUsername = StoreStatement("""
        SELECT id FROM invitations WHERE username = $1 AND revoked_at IS NULL AND uses < max_uses AND expires_at > $2
        """)
    static let markMailed = StoreStatement("UPDATE invitations SET mailed_at = $2 WHERE id = $1 RETURNING id")
    /// Revokes a live invitation ($2: now); a used-up or expired one is not revoked again.
    static let revoke = StoreStatement("""
        UPDATE invitations SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL AND uses < max_uses AND expires_at > $2
        RETURNING account_id
        """)
    /// The restricted sessions of invitation $1's uses that have not added their passkey yet.
    static let deleteSessions = StoreStatement("""
        DELETE FROM sessions WHERE method = 'invitation'
            AND recovery_grant IN (SELECT id FROM invitation_uses WHERE invitation_id = $1 AND completed_at IS NULL)
        RETURNING account_id
        """)
    /// A wrong secret for invitation $1: counted, and at $3 failures it is revoked ($2: now).
    static let fail = StoreStatement("""
        UPDATE invitations SET failed_attempts = failed_attempts + 1,
            revoked_at = CASE WHEN failed_attempts + 1 >= $3 AND revoked_at IS NULL THEN $2 ELSE revoked_at END
        WHERE id = $1 RETURNING failed_attempts
        """)
    /// One use ($2: now): of any number of concurrent uses of the last one left, the first takes it and the
    /// rest find none (PostgreSQL makes them wait on the row, SQLite's write transaction on the database).
    static let use = StoreStatement("""
        UPDATE invitations SET uses = uses + 1 WHERE id = $1 AND uses < max_uses AND revoked_at IS NULL AND expires_at > $2
        RETURNING \(columns)
        """)
    /// Whether account $1 can take an operator's invitation: enabled, and without a passkey yet.
    static let accountState = StoreStatement("""
        SELECT a.disabled_at, (SELECT count(*) FROM credentials c WHERE c.account_id = a.id) AS passkeys FROM accounts a WHERE a.id = $1
        """)
    static let insertUse = StoreStatement(
        "INSERT INTO invitation_uses (id, invitation_id, account_id, used_at, completed_at) VALUES ($1, $2, $3, $4, NULL)")
    /// The use's restricted session: like a recovery grant's (`SQL.insertRecoverySession`), tied to the use.
    static let insertSession = StoreStatement("""
        INSERT INTO sessions (token_hash, account_id, created_at, expires_at, credential_id, user_verified, method, recovery_grant)
        VALUES ($1, $2, $3, $4, NULL, 0, 'invitation', $5)
        """)
    /// The use's one passkey, in the transaction that adds it ($2: now): the account's first
    /// (`CeremonyStorage.addCredential`, a `RecoveryUse` of the invitation kind).
    static let completeUse = StoreStatement("""
        UPDATE invitation_uses SET completed_at = $2
        WHERE id = $1 AND completed_at IS NULL AND NOT EXISTS (SELECT 1 FROM credentials c WHERE c.account_id = invitation_uses.account_id)
        RETURNING account_id
        """)
}
