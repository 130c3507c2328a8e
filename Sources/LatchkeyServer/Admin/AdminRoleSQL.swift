import LatchkeyDatabase

/// The statements of administrators' roles and the first administrator's setup links (`AdminRoleStore`).
extension SQL {
    static let adminRoleColumns = "account_id, scopes, granted_at, granted_by"
    /// Grants the role, or changes its scopes; answers the row.
    static let upsertAdminRole = StoreStatement("""
        INSERT INTO admin_roles (\(adminRoleColumns)) VALUES ($1, $2, $3, $4)
        ON CONFLICT (account_id) DO UPDATE SET scopes = excluded.scopes, granted_at = excluded.granted_at, granted_by = excluded.granted_by
        RETURNING account_id
        """)
    static let adminRole = StoreStatement("SELECT \(adminRoleColumns) FROM admin_roles WHERE account_id = $1")
    static let adminRoles = StoreStatement("SELECT \(adminRoleColumns) FROM admin_roles ORDER BY granted_at, account_id")
    static let deleteAdminRole = StoreStatement("DELETE FROM admin_roles WHERE account_id = $1 RETURNING account_id")
    static let anyAdminRole = StoreStatement("SELECT account_id FROM admin_roles LIMIT 1")
    static let accountExists = StoreStatement("SELECT id FROM accounts WHERE id = $1")

    static let insertSetupLink = StoreStatement("INSERT INTO admin_setup_links (secret_hash, created_at, expires_at) VALUES ($1, $2, $3)")
    static let setupLinks = StoreStatement("SELECT secret_hash, expires_at FROM admin_setup_links")
    /// Every setup link, live or not: the use of one spends them all (there is one first administrator).
    static let takeSetupLinks = StoreStatement("DELETE FROM admin_setup_links RETURNING secret_hash, expires_at")
    static let purgeSetupLinks = StoreStatement("DELETE FROM admin_setup_links WHERE expires_at <= $1 RETURNING expires_at")
}
