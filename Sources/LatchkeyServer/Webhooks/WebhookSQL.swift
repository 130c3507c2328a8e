import LatchkeyDatabase

/// The webhook outbox's statements (`WebhookOutboxStore.swift`).
extension SQL {
    /// Claims up to $3 deliveries due by $1 for the endpoints in the comma-separated $4, leasing each
    /// until $2 (a delivery not finished by then — its instance died — is due again). PostgreSQL skips
    /// rows another instance holds, so instances never claim the same delivery.
    static let claimWebhooksOnPostgres = StoreStatement("""
        UPDATE webhook_outbox o SET next_attempt_at = $2, attempts = o.attempts + 1
        FROM (SELECT audit_id, endpoint FROM webhook_outbox
              WHERE next_attempt_at <= $1 AND endpoint = ANY (string_to_array($4, ','))
              ORDER BY audit_id LIMIT $3 FOR UPDATE SKIP LOCKED) due
        WHERE o.audit_id = due.audit_id AND o.endpoint = due.endpoint
        RETURNING o.audit_id, o.endpoint, o.attempts
        """)
    /// The same on SQLite, whose one writer at a time makes the claim exclusive by itself.
    static let claimWebhooksOnSQLite = StoreStatement("""
        UPDATE webhook_outbox SET next_attempt_at = $2, attempts = attempts + 1
        WHERE (audit_id, endpoint) IN (
            SELECT audit_id, endpoint FROM webhook_outbox
            WHERE next_attempt_at <= $1 AND instr(',' || $4 || ',', ',' || endpoint || ',') > 0
            ORDER BY audit_id LIMIT $3)
        RETURNING audit_id, endpoint, attempts
        """)
    static let auditEvent = StoreStatement("SELECT \(auditColumns) FROM audit_events WHERE id = $1")
    static let deleteWebhook = StoreStatement("DELETE FROM webhook_outbox WHERE audit_id = $1 AND endpoint = $2")
    static let retryWebhook = StoreStatement("""
        UPDATE webhook_outbox SET next_attempt_at = $3, last_error = $4 WHERE audit_id = $1 AND endpoint = $2
        """)
    static let countWebhooks = StoreStatement("SELECT count(*) AS n FROM webhook_outbox")
}
