import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// Fewer pages written per login (issue 16). A used challenge is keyed by its expiry first: a
    /// challenge's expiry is sealed inside it, so the same challenge always comes with the same expiry
    /// and (expiry, digest) is unique exactly when the digest is. New rows then land at the key's right
    /// edge instead of a random page, and the purge by expiry reads the key itself, so the separate
    /// expiry index goes. Sessions lose their index by passkey: the sessions a removed passkey opened
    /// are found among its account's (one person's handful), through the index by account. PostgreSQL's
    /// rate-limit buckets hand out several tokens at a time.
    static let v8 = Migrations.Migration(
        version: 8,
        summary: "Used challenges keyed by expiry first, the sessions' index by passkey dropped (fewer pages per login); PostgreSQL leases rate-limit tokens."
    ) { flavor in
        [
            """
            CREATE TABLE used_challenges_v8 (
                expires_at BIGINT NOT NULL,
                digest \(flavor.bytesType) NOT NULL,
                PRIMARY KEY (expires_at, digest))\(flavor == .sqlite ? " WITHOUT ROWID" : "")
            """,
            "INSERT INTO used_challenges_v8 (expires_at, digest) SELECT expires_at, digest FROM used_challenges",
            "DROP TABLE used_challenges",
            "ALTER TABLE used_challenges_v8 RENAME TO used_challenges",
            "DROP INDEX sessions_by_credential",
        ] + (flavor == .postgres ? [
            // How many tokens the last take got: instances lease several at once (`SharedRateLimit`).
            "ALTER TABLE rate_limits ADD COLUMN granted DOUBLE PRECISION NOT NULL DEFAULT 0",
        ] : [])
    }
}
