import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// What the client said about a new passkey (issue 32): whether it is discoverable (credProps' `rk`)
    /// and whether it can evaluate a PRF (prf's `enabled`), each null when the client did not say — every
    /// passkey made before.
    static let v14 = Migrations.Migration(
        version: 14,
        summary: "Passkeys record whether they are discoverable (credProps) and can evaluate a PRF (prf), when the client said."
    ) { _ in
        [
            "ALTER TABLE credentials ADD COLUMN discoverable INTEGER",
            "ALTER TABLE credentials ADD COLUMN prf_enabled INTEGER",
        ]
    }
}
