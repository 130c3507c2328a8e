import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// SQLite only: ceremonies and sessions are keyed by random bytes and looked up only by that key, so
    /// a table clustered on it (WITHOUT ROWID) is one B-tree fewer to write per row. Ceremonies lose
    /// their expiry index too: the table holds only the last few minutes' unfinished ceremonies, which
    /// the housekeeping purge can scan, and every login would otherwise write that index twice. Four
    /// pages fewer in the write-ahead log per login. PostgreSQL keeps version 1's tables.
    static let v2 = Migrations.Migration(
        version: 2,
        summary: "SQLite only: ceremonies and sessions clustered on their random keys (WITHOUT ROWID), fewer pages written per login."
    ) { flavor in
        guard flavor == .sqlite else { return [] }
        return [
            """
            CREATE TABLE ceremonies_clustered (
                challenge BLOB PRIMARY KEY,
                kind TEXT NOT NULL,
                account_id TEXT REFERENCES accounts(id) ON DELETE CASCADE,
                user_handle BLOB,
                display_name TEXT,
                expires_at BIGINT NOT NULL) WITHOUT ROWID
            """,
            "INSERT INTO ceremonies_clustered SELECT challenge, kind, account_id, user_handle, display_name, expires_at FROM ceremonies",
            "DROP TABLE ceremonies",
            "ALTER TABLE ceremonies_clustered RENAME TO ceremonies",
            """
            CREATE TABLE sessions_clustered (
                token_hash BLOB PRIMARY KEY,
                account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL) WITHOUT ROWID
            """,
            "INSERT INTO sessions_clustered SELECT token_hash, account_id, created_at, expires_at FROM sessions",
            "DROP TABLE sessions",
            "ALTER TABLE sessions_clustered RENAME TO sessions",
            "CREATE INDEX sessions_by_account ON sessions (account_id)",
        ]
    }
}
