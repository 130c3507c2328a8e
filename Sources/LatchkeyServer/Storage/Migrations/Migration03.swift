import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// Security review, November 2026. Sessions remember the passkey that opened them, so removing a
    /// passkey ends its sessions (finding 15); credentials remember whether their attestation chain was
    /// validated to a configured anchor, so the page can say "not verified" (finding 16). SQLite gets
    /// its ceremony expiry index back: the purge and the pending-ceremony cap run under the write lock,
    /// and without the index each was a scan of every pending row (finding 10).
    static let v3 = Migrations.Migration(
        version: 3,
        summary: "Sessions remember the passkey that opened them, passkeys whether their attestation was verified; SQLite's ceremony expiry index again."
    ) { flavor in
        [
            "ALTER TABLE sessions ADD COLUMN credential_id \(flavor.bytesType)",
            "CREATE INDEX sessions_by_credential ON sessions (credential_id)",
            "ALTER TABLE credentials ADD COLUMN attestation_verified INTEGER NOT NULL DEFAULT 0",
        ] + (flavor == .sqlite ? ["CREATE INDEX ceremonies_by_expiry ON ceremonies (expires_at)"] : [])
    }
}
