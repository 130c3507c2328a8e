import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// A registration wrote about 15 pages of its 40 into the two FTS5 tables (a new segment per commit):
    /// new rows are now noted in a pending table and indexed a second later in batches
    /// (`AccountSearchIndex`, `SearchIndexing`; issue 34). PostgreSQL's GIN indexes batch their own
    /// insertions (`fastupdate`): nothing changes there.
    static let v18 = Migrations.Migration(
        version: 18,
        summary: "SQLite: new accounts and passkeys reach the admin search's trigram index in batches, a second after they are written (found by the search meanwhile)."
    ) { flavor in
        flavor == .sqlite ? AccountSearchIndex.sqliteDeferredSchema : []
    }
}
