import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// Operating Latchkey (issue 29). Accounts can be disabled (reversibly: null is enabled). The audit
    /// trail, append-only, rows numbered in the order written; no foreign key to accounts, because an
    /// account's history outlives it. Its one index serves a person's own history and an operator's
    /// `--account` (newest first); the retention purge walks the numbers from the oldest, which are
    /// also the oldest times, so it needs no index of its own and a login writes one index, not two.
    /// Admin API keys, by the SHA-256 of their secret. The webhook outbox: one row per event and
    /// endpoint still to deliver, written with the event.
    static let v10 = Migrations.Migration(
        version: 10,
        summary: "Operating Latchkey: accounts can be disabled; the audit trail, admin API keys and the webhook outbox."
    ) { flavor in
        let bytes = flavor.bytesType
        let serial = flavor == .sqlite ? "INTEGER PRIMARY KEY" : "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
        return [
            "ALTER TABLE accounts ADD COLUMN disabled_at BIGINT",
            """
            CREATE TABLE audit_events (
                id \(serial),
                at BIGINT NOT NULL,
                event TEXT NOT NULL,
                account_id TEXT,
                credential_id \(bytes),
                actor TEXT NOT NULL,
                client_address TEXT,
                user_agent TEXT,
                request_id TEXT,
                detail TEXT NOT NULL)
            """,
            "CREATE INDEX audit_events_by_account ON audit_events (account_id, id)",
            """
            CREATE TABLE admin_keys (
                id TEXT PRIMARY KEY,
                secret_hash \(bytes) NOT NULL UNIQUE,
                scope TEXT NOT NULL,
                name TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                created_by TEXT NOT NULL,
                last_used_at BIGINT,
                revoked_at BIGINT)
            """,
            """
            CREATE TABLE webhook_outbox (
                audit_id BIGINT NOT NULL,
                endpoint TEXT NOT NULL,
                attempts INTEGER NOT NULL,
                next_attempt_at BIGINT NOT NULL,
                last_error TEXT,
                PRIMARY KEY (audit_id, endpoint))
            """,
            "CREATE INDEX webhook_outbox_by_due ON webhook_outbox (next_attempt_at)",
        ]
    }
}
