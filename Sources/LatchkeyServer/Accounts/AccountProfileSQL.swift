import LatchkeyDatabase

/// The account profile's statements (`Store+AccountProfile.swift`).
extension SQL {
    static let accountProfile = StoreStatement("""
        SELECT id, display_name, username, email, email_verified, group_names, updated_at, disabled_at FROM accounts WHERE id = $1
        """)
    static let accountIdByUsername = StoreStatement("SELECT id FROM accounts WHERE username = $1")
    /// The account that first held a username, whether it still does or not (`usernames`).
    static let usernameOwner = StoreStatement("SELECT account_id FROM usernames WHERE username = $1")
    /// Notes that account $2 holds username $1 from $3 on; a name noted before keeps its first holder.
    static let noteUsername = StoreStatement(
        "INSERT INTO usernames (username, account_id, first_used_at) VALUES ($1, $2, $3) ON CONFLICT (username) DO NOTHING")
    /// Every username accounts hold that is not noted yet: migration 20, and after `latchkey import`
    /// (an export from before version 20 has no `usernames` rows).
    static let backfillUsernames = """
        INSERT INTO usernames (username, account_id, first_used_at)
        SELECT username, id, updated_at FROM accounts WHERE username IS NOT NULL
        ON CONFLICT (username) DO NOTHING
        """
    static let setAccountUsername = StoreStatement("UPDATE accounts SET username = $2, updated_at = $3 WHERE id = $1 RETURNING id")
    static let setAccountEmail = StoreStatement(
        "UPDATE accounts SET email = $2, email_verified = $3, updated_at = $4 WHERE id = $1 RETURNING id")
    /// A new address keeps its verification only when it is the address already stored (the right-hand
    /// sides read the row as it was).
    static let setAccountEmailKeepingVerification = StoreStatement("""
        UPDATE accounts SET email_verified = CASE WHEN $2 IS NOT NULL AND email = $2 THEN email_verified ELSE 0 END, email = $2,
            updated_at = $3
        WHERE id = $1 RETURNING id
        """)
    static let setAccountEmailVerified = StoreStatement("""
        UPDATE accounts SET email_verified = CASE WHEN email IS NULL THEN 0 ELSE $2 END, updated_at = $3 WHERE id = $1 RETURNING id
        """)
    static let setAccountGroups = StoreStatement("UPDATE accounts SET group_names = $2, updated_at = $3 WHERE id = $1 RETURNING id")
}
