import LatchkeyDatabase

/// The device requests' statements (`Store+DeviceRequests.swift`).
extension SQL {
    static let deviceRequestColumns = """
        id, code_hash, secret_hash, created_at, expires_at, user_agent, client_address, account_id, approved_at, denied_at, \
        session_issued_at, completed_at, for_username
        """
    /// A new request of requester $9 (for the account with username $11, if any), unless $8 requests are live already ($4: now), $10 of them the
    /// requester's, or a live one has the same code.
    static let insertDeviceRequest = StoreStatement("""
        INSERT INTO device_requests (id, code_hash, secret_hash, created_at, expires_at, user_agent, client_address, requester, for_username)
        SELECT $1, $2, $3, $4, $5, $6, $7, $9, $11
        WHERE (SELECT count(*) FROM device_requests WHERE expires_at > $4) < $8
          AND (SELECT count(*) FROM device_requests WHERE requester = $9 AND expires_at > $4) < $10
          AND NOT EXISTS (SELECT 1 FROM device_requests WHERE code_hash = $2 AND expires_at > $4)
        RETURNING id
        """)
    /// Makes room for requester $1's next request ($2: now) when it holds $3 live ones: its oldest
    /// undecided one is deleted (its device's poll then finds nothing, as for an expired one).
    static let evictOldestDeviceRequest = StoreStatement("""
        DELETE FROM device_requests WHERE id = (
            SELECT id FROM device_requests WHERE requester = $1 AND expires_at > $2 AND approved_at IS NULL AND denied_at IS NULL
            ORDER BY created_at, id LIMIT 1)
          AND (SELECT count(*) FROM device_requests WHERE requester = $1 AND expires_at > $2) >= $3
        RETURNING id
        """)
    static let deviceRequest = StoreStatement("SELECT \(deviceRequestColumns) FROM device_requests WHERE id = $1")
    static let liveDeviceRequestByCode = StoreStatement("""
        SELECT \(deviceRequestColumns) FROM device_requests
        WHERE code_hash = $1 AND expires_at > $2 AND approved_at IS NULL AND denied_at IS NULL
        """)
    /// Approval by account $2 at $3, while the request is live and undecided.
    static let approveDeviceRequest = StoreStatement("""
        UPDATE device_requests SET account_id = $2, approved_at = $3
        WHERE id = $1 AND approved_at IS NULL AND denied_at IS NULL AND expires_at > $3 RETURNING id
        """)
    static let denyDeviceRequest = StoreStatement("""
        UPDATE device_requests SET denied_at = $2
        WHERE id = $1 AND approved_at IS NULL AND denied_at IS NULL AND expires_at > $2 RETURNING id
        """)
    /// The approved request's one session ($2: now), within the request's life.
    static let issueDeviceSession = StoreStatement("""
        UPDATE device_requests SET session_issued_at = $2
        WHERE id = $1 AND approved_at IS NOT NULL AND session_issued_at IS NULL AND expires_at > $2 RETURNING account_id
        """)
    static let insertDeviceSession = StoreStatement("""
        INSERT INTO sessions (token_hash, account_id, created_at, expires_at, credential_id, user_verified, method, recovery_grant)
        VALUES ($1, $2, $3, $4, NULL, 0, 'device', $5)
        """)
    /// The approved device's passkey: the request is done ($2: now).
    static let completeDeviceRequest = StoreStatement("""
        UPDATE device_requests SET completed_at = $2
        WHERE id = $1 AND session_issued_at IS NOT NULL AND completed_at IS NULL RETURNING account_id
        """)
    static let purgeDeviceRequests = StoreStatement("DELETE FROM device_requests WHERE expires_at <= $1 RETURNING id")
}
