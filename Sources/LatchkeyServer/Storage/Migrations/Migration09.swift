import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// The origin whose ceremony created a passkey: a web origin, or an Android app's
    /// `android:apk-key-hash:…` (issue 35). Null for passkeys made before.
    static let v9 = Migrations.Migration(
        version: 9,
        summary: "Passkeys record the origin whose ceremony created them (a web origin or an Android app)."
    ) { _ in
        ["ALTER TABLE credentials ADD COLUMN created_origin TEXT"]
    }
}
