import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    static let v1 = Migrations.Migration(
        version: 1,
        summary: "The first schema: accounts, their passkeys (credentials), pending ceremonies and sessions."
    ) { flavor in
        let bytes = flavor.bytesType
        return [
            """
            CREATE TABLE accounts (
                id TEXT PRIMARY KEY,
                user_handle \(bytes) NOT NULL UNIQUE,
                display_name TEXT NOT NULL,
                credo TEXT NOT NULL DEFAULT '',
                created_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL)
            """,
            """
            CREATE TABLE credentials (
                id \(bytes) PRIMARY KEY,
                account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                public_key \(bytes) NOT NULL,
                algorithm INTEGER NOT NULL,
                sign_count BIGINT NOT NULL,
                transports TEXT NOT NULL,
                aaguid \(bytes) NOT NULL,
                attestation_format TEXT NOT NULL,
                backup_eligible INTEGER NOT NULL,
                backup_state INTEGER NOT NULL,
                uv_initialized INTEGER NOT NULL,
                name TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                last_used_at BIGINT)
            """,
            "CREATE INDEX credentials_by_account ON credentials (account_id)",
            """
            CREATE TABLE ceremonies (
                challenge \(bytes) PRIMARY KEY,
                kind TEXT NOT NULL,
                account_id TEXT REFERENCES accounts(id) ON DELETE CASCADE,
                user_handle \(bytes),
                display_name TEXT,
                expires_at BIGINT NOT NULL)
            """,
            "CREATE INDEX ceremonies_by_expiry ON ceremonies (expires_at)",
            """
            CREATE TABLE sessions (
                token_hash \(bytes) PRIMARY KEY,
                account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL)
            """,
            "CREATE INDEX sessions_by_account ON sessions (account_id)",
        ]
    }
}
