import LatchkeyDatabase

/// The audit trail's statements (`AuditTrail`, `Store+Audit.swift`), beside the rest in `SQL`.
extension SQL {
    static let auditColumns = "id, at, event, account_id, credential_id, actor, client_address, user_agent, request_id, detail"

    /// One event; `RETURNING id` for the webhook outbox (SQLite drops the clause when the id is not read).
    static let insertAuditEvent = StoreStatement("""
        INSERT INTO audit_events (at, event, account_id, credential_id, actor, client_address, user_agent, request_id, detail)
        VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id
        """)
    /// One event, unless account $3 already has $12 events of kind $2 since $11 among its last $10: what
    /// an anonymous caller can make the server write (a refused login with a real passkey's id) is
    /// bounded per account and hour, however many requests it sends.
    static let insertAuditEventCapped = StoreStatement("""
        INSERT INTO audit_events (at, event, account_id, credential_id, actor, client_address, user_agent, request_id, detail)
        SELECT $1, $2, $3, $4, $5, $6, $7, $8, $9
        WHERE (SELECT count(*) FROM (SELECT event, at FROM audit_events WHERE account_id = $3 ORDER BY id DESC LIMIT $10) recent
               WHERE recent.event = $2 AND recent.at > $11) < $12
        RETURNING id
        """)
    /// An event waiting for delivery to webhook endpoint $2 (`WebhookEndpoint.id`), due at once.
    static let queueWebhook = StoreStatement("""
        INSERT INTO webhook_outbox (audit_id, endpoint, attempts, next_attempt_at) VALUES ($1, $2, 0, $3)
        """)

    /// Newest first, below row $2, at or after $3, of kind $4 (empty: any), at most $5.
    static let auditEvents = StoreStatement("""
        SELECT \(auditColumns) FROM audit_events
        WHERE id < $1 AND at >= $2 AND ($3 = '' OR event = $3) ORDER BY id DESC LIMIT $4
        """)
    /// The same for one account ($5), through the index by account.
    static let accountAuditEvents = StoreStatement("""
        SELECT \(auditColumns) FROM audit_events
        WHERE account_id = $5 AND id < $1 AND at >= $2 AND ($3 = '' OR event = $3) ORDER BY id DESC LIMIT $4
        """)
    /// Events older than $1, oldest first in batches of $2: rows are numbered in the order written, so the
    /// expired ones are a prefix of the numbers, found by walking from the lowest without an index by time.
    static let purgeAuditEvents = StoreStatement("""
        DELETE FROM audit_events WHERE id IN (SELECT id FROM audit_events WHERE at < $1 ORDER BY id LIMIT $2) RETURNING id
        """)
}
