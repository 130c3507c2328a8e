import LatchkeyRuntime
import Logging
import NIOCore
import PostgresKit
import SQLKit

/// A borrowed PostgreSQL connection as SQLKit's `SQLDatabase`: everything goes through PostgresKit as
/// before, and the connection itself is kept so that the statements a login runs can go as named
/// prepared statements (`PreparedOnPostgres`).
/// It also follows what the statements it runs do to transactions (`commits`), so that the unit of work
/// it serves is not reported done before PostgreSQL has committed its last write.
package struct PostgresStoreDatabase: SQLDatabase {
    package let connection: PostgresConnection
    package let base: any SQLDatabase
    package let commits = PostgresCommitWait()

    package init(connection: PostgresConnection) {
        self.connection = connection
        self.base = connection.sql(queryLogLevel: nil)
    }

    /// Returns once the last write's commit has ended (see `PostgresCommitWait`).
    package func waitForCommit() async throws {
        try await commits.wait(on: connection, logger: logger)
    }

    package var logger: Logger { base.logger }
    package var eventLoop: any EventLoop { base.eventLoop }
    package var version: (any SQLDatabaseReportedVersion)? { base.version }
    package var dialect: any SQLDialect { base.dialect }
    package var queryLogLevel: Logger.Level? { base.queryLogLevel }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> ()) -> EventLoopFuture<Void> {
        let effect = (query as? StoreQuery)?.statement.effect
        return base.execute(sql: query, onRow).map { [commits] in commits.completed(effect) }
    }

    package func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> ()) async throws {
        try await base.execute(sql: query, onRow)
        commits.completed((query as? StoreQuery)?.statement.effect)
    }
}

/// A store statement that PostgreSQL runs as a named prepared statement: parsed and planned once per
/// connection, then only bound and executed. An ordinary query is parsed, described and planned on
/// every run, on both sides of the connection (issue 16: the login's two statements on PostgreSQL).
/// Each such statement names a type of its own, because PostgresNIO keys prepared statements by a
/// static name and text.
package protocol PreparedOnPostgres: SendableMetatype {
    static var statement: StoreStatement { get }
    /// The prepared statement's name on each connection.
    static var name: String { get }
}

extension PreparedOnPostgres {
    /// The rows of `statement` with `values`, run prepared on `connection`.
    package static func rows(_ values: [StoreValue], on database: PostgresStoreDatabase) async throws -> [any SQLRow] {
        var rows: [any SQLRow] = []
        for try await row in try await database.connection.execute(PreparedStoreQuery<Self>(values: values), logger: database.logger) {
            rows.append(row.sql())
        }
        database.commits.completed(statement.effect)
        return rows
    }
}

/// PostgresNIO's view of a `PreparedOnPostgres` statement with its values.
package struct PreparedStoreQuery<Key: PreparedOnPostgres>: PostgresPreparedStatement {
    package typealias Row = PostgresRow

    package static var name: String { Key.name }
    package static var sql: String { Key.statement.postgresText }

    package let values: [StoreValue]

    package func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            switch value {
            case .integer(let number): bindings.append(number)
            case .text(let text): bindings.append(text)
            case .blob(let bytes): bindings.append(bytes.map { ByteBuffer(bytes: $0) })
            }
        }
        return bindings
    }

    package func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}
