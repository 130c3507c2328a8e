import Foundation
import LatchkeyDatabase

/// Keeping the account search's index current (`AccountSearchIndex`): `SearchIndexing` runs it each second,
/// a bulk insert and an import before they end. Every writer of names leaves rows pending; this moves them.
extension Store {
    /// Moves up to `AccountSearchIndex.batch` pending rows of each trigram table into its FTS5 table, in
    /// one commit (SQLite; on PostgreSQL there is nothing to do). How many rows it moved: the caller runs
    /// it again at once while a batch comes back full.
    @discardableResult
    func indexPendingNames() async throws -> Int {
        guard connections.flavor == .sqlite else { return 0 }
        // Most rounds find nothing: asked on a reading connection, not with the writer's lock.
        let anything = try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.anyPendingNames))?.decode(column: "n", as: Int.self) ?? 0
        }
        guard anything > 0 else { return 0 }
        return try await connections.transaction { db in
            guard let bounds = try await db.first(StoreQuery(SQL.pendingNameBounds, .integer(Int64(AccountSearchIndex.batch)))) else { return 0 }
            var moved = 0
            for (column, statements) in [("accounts", SQL.indexPendingAccountNames), ("credentials", SQL.indexPendingCredentialNames)] {
                guard let bound = try bounds.decode(column: column, as: Int64?.self) else { continue }
                try await db.run(StoreQuery(statements[0], .integer(bound)))
                moved = max(moved, try await db.changedRows(StoreQuery(statements[1], .integer(bound))))
            }
            return moved
        }
    }

    /// Rounds of `indexPendingNames` until one comes back short of a full batch (or the task is
    /// cancelled): what `SearchIndexing` runs each second, and what a bulk insert or an import runs
    /// before it ends.
    func indexAllPendingNames() async throws {
        while try await indexPendingNames() >= AccountSearchIndex.batch, !Task.isCancelled {}
    }
}
