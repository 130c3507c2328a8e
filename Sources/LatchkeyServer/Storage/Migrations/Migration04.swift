import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// Sealed challenges (issues 12 and 16): options store nothing, the ceremony travels inside its
    /// challenge, sealed under a key kept here; a completed ceremony leaves its challenge's digest until
    /// the challenge expires. Ceremonies pending at the upgrade are dropped: they are started again.
    static let v4 = Migrations.Migration(
        version: 4,
        summary: "Sealed challenges: pending ceremonies dropped (people start again), used challenges kept until they expire, server keys in the database."
    ) { flavor in
        let bytes = flavor.bytesType
        return [
            "DROP TABLE ceremonies",
            """
            CREATE TABLE used_challenges (
                digest \(bytes) PRIMARY KEY,
                expires_at BIGINT NOT NULL)\(flavor == .sqlite ? " WITHOUT ROWID" : "")
            """,
            "CREATE INDEX used_challenges_by_expiry ON used_challenges (expires_at)",
            """
            CREATE TABLE server_keys (
                name TEXT PRIMARY KEY,
                secret \(bytes) NOT NULL,
                created_at BIGINT NOT NULL)
            """,
        ]
    }
}
