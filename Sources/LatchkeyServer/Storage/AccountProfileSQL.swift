/// The account profile's statements (`Store+AccountProfile.swift`).
extension SQL {
    static let accountProfile = StoreStatement("""
        SELECT id, display_name, username, email, email_verified, group_names, updated_at, disabled_at FROM accounts WHERE id = $1
        """)
    static let accountIdByUsername = StoreStatement("SELECT id FROM accounts WHERE username = $1")
    static let setAccountUsername = StoreStatement("UPDATE accounts SET username = $2, updated_at = $3 WHERE id = $1 RETURNING id")
    static let setAccountEmail = StoreStatement(
        "UPDATE accounts SET email = $2, email_verified = $3, updated_at = $4 WHERE id = $1 RETURNING id")
    static let setAccountGroups = StoreStatement("UPDATE accounts SET group_names = $2, updated_at = $3 WHERE id = $1 RETURNING id")
}
