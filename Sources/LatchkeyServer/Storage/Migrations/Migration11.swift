import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// Recovery (issue 30). Sessions say how they were made: `passkey`, or `recovery` — a restricted
    /// session that can only add a passkey, tied to the grant it came from. Recovery grants, issued by
    /// an operator: an id (the code's first group, for the look-up and the attempt count) and the
    /// SHA-256 of the code's secret part, never the code.
    static let v11 = Migrations.Migration(
        version: 11,
        summary: "Recovery: sessions record how they were made; recovery grants and device requests (hashes only)."
    ) { flavor in
        [
            "ALTER TABLE sessions ADD COLUMN method TEXT NOT NULL DEFAULT 'passkey'",
            "ALTER TABLE sessions ADD COLUMN recovery_grant TEXT",
            """
            CREATE TABLE recovery_grants (
                id TEXT PRIMARY KEY,
                secret_hash \(flavor.bytesType) NOT NULL,
                account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                purpose TEXT NOT NULL,
                issued_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                issued_by TEXT NOT NULL,
                exchanged_at BIGINT,
                used_at BIGINT,
                revoked_at BIGINT,
                failed_attempts INTEGER NOT NULL DEFAULT 0)
            """,
            "CREATE INDEX recovery_grants_by_account ON recovery_grants (account_id)",
            // A new device asking a signed-in one to let it in: found by its short code's hash, polled
            // with its secret (the hash of each only), approved by the account's owner with a fresh
            // passkey assertion, purged when expired.
            """
            CREATE TABLE device_requests (
                id TEXT PRIMARY KEY,
                code_hash \(flavor.bytesType) NOT NULL,
                secret_hash \(flavor.bytesType) NOT NULL,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                user_agent TEXT,
                client_address TEXT,
                account_id TEXT REFERENCES accounts(id) ON DELETE CASCADE,
                approved_at BIGINT,
                denied_at BIGINT,
                session_issued_at BIGINT,
                completed_at BIGINT)
            """,
            "CREATE INDEX device_requests_by_code ON device_requests (code_hash)",
            "CREATE INDEX device_requests_by_expiry ON device_requests (expires_at)",
        ]
    }
}
