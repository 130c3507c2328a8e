import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// When a passkey's backup state last changed at a login (null: never).
    static let v7 = Migrations.Migration(
        version: 7,
        summary: "Passkeys record when their backup state last changed at a login."
    ) { _ in
        ["ALTER TABLE credentials ADD COLUMN backup_state_changed_at BIGINT"]
    }
}
