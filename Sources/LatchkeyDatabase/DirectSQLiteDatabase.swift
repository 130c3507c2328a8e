import LatchkeyRuntime
import Foundation
import Logging
import NIOCore
import SQLKit

/// One unit of work's view of the connection, as SQLKit's `SQLDatabase`.
package struct DirectSQLiteDatabase: SQLDatabase {
    package let connection: DirectSQLite
    package let logger: Logger
    package let eventLoop: any EventLoop
    package var dialect: any SQLDialect { SQLiteSyntax() }
    package var version: (any SQLDatabaseReportedVersion)? { nil }
    package var queryLogLevel: Logger.Level? { nil }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> ()) -> EventLoopFuture<Void> {
        do {
            try run(query, onRow: onRow)
            return eventLoop.makeSucceededVoidFuture()
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
    }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> ()) async throws {
        try run(query, onRow: onRow)
    }

    /// See `SQLDatabase.changedRows`.
    package func countChanges(_ query: StoreQuery) throws -> Int {
        try connection.changes(query.statement, values: query.values)
    }

    /// The store's own statements skip SQLKit's serializer; anything else is serialized as usual.
    private func run(_ query: any SQLExpression, onRow: (any SQLRow) -> Void) throws {
        if let query = query as? StoreQuery {
            try connection.run(query.statement, values: query.values, onRow: onRow)
        } else {
            let (sql, binds) = serialize(query)
            try connection.run(sql, binds: binds, onRow: onRow)
        }
    }
}
