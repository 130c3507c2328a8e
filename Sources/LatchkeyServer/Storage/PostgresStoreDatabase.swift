import Logging
import NIOCore
import PostgresKit
import SQLKit

/// A borrowed PostgreSQL connection as SQLKit's `SQLDatabase`: everything goes through PostgresKit as
/// before, and the connection itself is kept so that the statements a login runs can go as named
/// prepared statements (`PreparedOnPostgres`).
/// It also follows what the statements it runs do to transactions (`commits`), so that the unit of work
/// it serves is not reported done before PostgreSQL has committed its last write.
struct PostgresStoreDatabase: SQLDatabase {
    let connection: PostgresConnection
    let base: any SQLDatabase
    let commits = PostgresCommitWait()

    init(connection: PostgresConnection) {
        self.connection = connection
        self.base = connection.sql(queryLogLevel: nil)
    }

    /// Returns once the last write's commit has ended (see `PostgresCommitWait`).
    func waitForCommit() async throws {
        try await commits.wait(on: connection, logger: logger)
    }

    var logger: Logger { base.logger }
    var eventLoop: any EventLoop { base.eventLoop }
    var version: (any SQLDatabaseReportedVersion)? { base.version }
    var dialect: any SQLDialect { base.dialect }
    var queryLogLevel: Logger.Level? { base.queryLogLevel }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> ()) -> EventLoopFuture<Void> {
        let effect = (query as? StoreQuery)?.statement.effect
        return base.execute(sql: query, onRow).map { [commits] in commits.completed(effect) }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> ()) async throws {
        try await base.execute(sql: query, onRow)
        commits.completed((query as? StoreQuery)?.statement.effect)
    }
}

/// A store statement that PostgreSQL runs as a named prepared statement: parsed and planned once per
/// connection, then only bound and executed. An ordinary query is parsed, described and planned on
/// every run, on both sides of the connection (issue 16: the login's two statements on PostgreSQL).
/// Each such statement names a type of its own, because PostgresNIO keys prepared statements by a
/// static name and text.
protocol PreparedOnPostgres: SendableMetatype {
    static var statement: StoreStatement { get }
    /// The prepared statement's name on each connection.
    static var name: String { get }
}

extension PreparedOnPostgres {
    /// The rows of `statement` with `values`, run prepared on `connection`.
    static func rows(_ values: [StoreValue], on database: PostgresStoreDatabase) async throws -> [any SQLRow] {
        var rows: [any SQLRow] = []
        for try await row in try await database.connection.execute(PreparedStoreQuery<Self>(values: values), logger: database.logger) {
            rows.append(row.sql())
        }
        database.commits.completed(statement.effect)
        return rows
    }
}

/// PostgresNIO's view of a `PreparedOnPostgres` statement with its values.
struct PreparedStoreQuery<Key: PreparedOnPostgres>: PostgresPreparedStatement {
    typealias Row = PostgresRow

    static var name: String { Key.name }
    static var sql: String { Key.statement.postgresText }

    let values: [StoreValue]

    func makeBindings() throws -> PostgresBindings {
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

    func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
}

/// The login's look-up of its credential and account (`SQL.credentialWithAccount`).
enum CredentialWithAccountOnPostgres: PreparedOnPostgres {
    static var statement: StoreStatement { SQL.credentialWithAccount }
    static let name = "latchkey_credential_with_account"
}

/// The login's writes in one statement (`SQL.finishLoginAtOnce`).
enum FinishLoginOnPostgres: PreparedOnPostgres {
    static var statement: StoreStatement { SQL.finishLoginAtOnce }
    static let name = "latchkey_finish_login"
}
