import LatchkeyDatabase

/// The forward-auth check's one statement (`ForwardAuthStore.swift`).
extension SQL {
    /// The account and profile of a live, full (passkey) session of an enabled account, by the token's
    /// hash: a restricted session (recovery, device, invitation) opens no app.
    static let forwardAuthIdentity = StoreStatement("""
        SELECT a.id, a.username, a.display_name, a.email, a.group_names, s.created_at, s.expires_at
        FROM sessions s JOIN accounts a ON a.id = s.account_id
        WHERE s.token_hash = $1 AND s.expires_at > $2 AND s.method = 'passkey' AND a.disabled_at IS NULL
        """)
}
