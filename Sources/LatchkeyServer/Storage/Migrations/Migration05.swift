import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// Several instances on one database (issue 13). `housekeeping` holds when a periodic task last ran
    /// anywhere, so that of the instances that wake up each minute one does the work. PostgreSQL only:
    /// `rate_limits`, the token buckets every instance draws from, UNLOGGED because a bucket is worth
    /// nothing after a crash (at worst a client gets a fresh allowance) and a logged table would put a
    /// write-ahead-log record, and its fsync, behind every API request.
    static let v5 = Migrations.Migration(
        version: 5,
        summary: "Several instances on one database: when each periodic task last ran; on PostgreSQL, the shared rate-limit buckets."
    ) { flavor in
        [
            """
            CREATE TABLE housekeeping (
                task TEXT PRIMARY KEY,
                last_run BIGINT NOT NULL,
                instance TEXT NOT NULL)
            """,
        ] + (flavor == .postgres ? [
            """
            CREATE UNLOGGED TABLE rate_limits (
                client BYTEA PRIMARY KEY,
                tokens DOUBLE PRECISION NOT NULL,
                admitted BOOLEAN NOT NULL,
                updated_at TIMESTAMPTZ NOT NULL)
            """,
            "CREATE INDEX rate_limits_by_update ON rate_limits (updated_at)",
        ] : [])
    }
}
