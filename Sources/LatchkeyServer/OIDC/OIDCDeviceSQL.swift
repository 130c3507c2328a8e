import LatchkeyDatabase

/// The device authorizations' statements (`Store+OIDCDevice.swift`).
extension SQL {
    static let oidcDeviceColumns = """
        device_hash, user_hash, client_id, scope, requester, created_at, expires_at, interval_seconds, polled_at, account_id, grant_id, \
        decided_at, approved
        """
    /// A new device authorization of requester $5 ($6: now), unless $9 are live already, $10 of them the
    /// requester's, or a live one has the same user code.
    static let insertOIDCDeviceCode = StoreStatement("""
        INSERT INTO oidc_device_codes (device_hash, user_hash, client_id, scope, requester, created_at, expires_at, interval_seconds)
        SELECT $1, $2, $3, $4, $5, $6, $7, $8
        WHERE (SELECT count(*) FROM oidc_device_codes WHERE expires_at > $6) < $9
          AND (SELECT count(*) FROM oidc_device_codes WHERE requester = $5 AND expires_at > $6) < $10
          AND NOT EXISTS (SELECT 1 FROM oidc_device_codes WHERE user_hash = $2)
        RETURNING client_id
        """)
    /// An expired authorization with user code $1 ($2: now) makes way for a new one with the same code.
    static let deleteExpiredOIDCDeviceCode = StoreStatement(
        "DELETE FROM oidc_device_codes WHERE user_hash = $1 AND expires_at <= $2 RETURNING client_id")
    static let oidcDeviceCodeByUser = StoreStatement("SELECT \(oidcDeviceColumns) FROM oidc_device_codes WHERE user_hash = $1")
    static let oidcDeviceCodeByDevice = StoreStatement("SELECT \(oidcDeviceColumns) FROM oidc_device_codes WHERE device_hash = $1")
    /// The person's decision ($2 account, $3 grant or NULL, $4 now, $5 approved), once, while it is live.
    static let decideOIDCDeviceCode = StoreStatement("""
        UPDATE oidc_device_codes SET account_id = $2, grant_id = $3, decided_at = $4, approved = $5
        WHERE user_hash = $1 AND decided_at IS NULL AND expires_at > $4 RETURNING client_id
        """)
    /// A poll at $2 with the interval now $3.
    static let pollOIDCDeviceCode = StoreStatement(
        "UPDATE oidc_device_codes SET polled_at = $2, interval_seconds = $3 WHERE device_hash = $1 RETURNING client_id")
    /// The device code's one use: of concurrent polls, one deletes it and gets the tokens.
    static let deleteOIDCDeviceCode = StoreStatement("DELETE FROM oidc_device_codes WHERE device_hash = $1 RETURNING client_id")
    /// Authorizations expired ($1: now).
    static let purgeOIDCDeviceCodes = StoreStatement("DELETE FROM oidc_device_codes WHERE expires_at <= $1 RETURNING client_id")
}

extension SQL {
    /// A grant whose device authorization was decided against, or could no longer be (it expired meanwhile).
    static let deleteOIDCGrant = StoreStatement("DELETE FROM oidc_grants WHERE id = $1 RETURNING id")
}
