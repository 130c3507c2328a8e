import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// PostgreSQL: the login's writes as a procedure that commits them, so that the login's last round
    /// trip proves its commit and no empty query waits for it (`FinishLoginProcedure`; issue 34).
    static let v19 = Migrations.Migration(
        version: 19,
        summary: "PostgreSQL: a login's writes commit inside one procedure call (one round trip less per login)."
    ) { flavor in
        flavor == .postgres ? [FinishLoginProcedure.create] : []
    }
}
