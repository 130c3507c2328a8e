import Foundation
@testable import LatchkeyDatabase
import Logging
import NIOCore
import NIOEmbedded
import SQLKit
import Testing
@testable import LatchkeyServer

@Suite("Store statements")
struct StoreStatementTests {
    @Test("placeholders become SQLite's ?N and SQLKit binds, in the order they appear")
    func placeholders() {
        let statement = StoreStatement("UPDATE t SET a = $2, b = $10 WHERE c = $1 AND d = $2 AND e = '$x' AND f = $0")
        #expect(statement.sqliteText == "UPDATE t SET a = ?2, b = ?10 WHERE c = ?1 AND d = ?2 AND e = '$x' AND f = $0")
        #expect(statement.valueCount == 10)
        #expect(statement.segments == [
            .text("UPDATE t SET a = "), .value(1), .text(", b = "), .value(9), .text(" WHERE c = "), .value(0),
            .text(" AND d = "), .value(1), .text(" AND e = '$x' AND f = $0"),
        ])
    }

    @Test("without placeholders the text is unchanged")
    func noPlaceholders() {
        let statement = StoreStatement("COMMIT")
        #expect(statement.sqliteText == "COMMIT")
        #expect(statement.valueCount == 0)
        #expect(statement.segments == [.text("COMMIT")])
    }

    @Test("SQLKit serializes a query with the dialect's placeholders and one bind per occurrence")
    func serializesForSQLKit() {
        let query = StoreQuery(StoreStatement("SELECT $2, $1, $2"), .text("a"), .blob(nil))
        var serializer = SQLSerializer(database: PlaceholderDatabase())
        query.serialize(to: &serializer)
        #expect(serializer.sql == "SELECT $1, $2, $3")
        #expect(serializer.binds.count == 3)
        #expect(serializer.binds[1] as? String == "a")
        #expect((serializer.binds[0] as? Data?) == .some(nil))
    }

    @Test("values round-trip through SQLite, empty blobs and typed NULLs included")
    func sqliteRoundTrip() throws {
        let connection = try DirectSQLite(path: ":memory:")
        try connection.run(StoreStatement("CREATE TABLE v (i INTEGER, t TEXT, b BLOB, e BLOB NOT NULL)"), values: []) { _ in }
        try connection.run(
            StoreStatement("INSERT INTO v VALUES ($1, $2, $3, $4)"), values: [.integer(-5), .text("é✨"), .blob(nil), .blob([])]) { _ in }
        var rows: [any SQLRow] = []
        try connection.run(StoreStatement("SELECT i, t, b, e FROM v"), values: []) { rows.append($0) }
        let row = try #require(rows.first)
        #expect(try row.decode(column: "i", as: Int64.self) == -5)
        #expect(try row.decode(column: "t", as: String.self) == "é✨")
        #expect(try row.decodeNil(column: "b"))
        #expect(try row.decode(column: "e", as: Data.self) == Data(), "an empty blob is an empty Data (as sqlite-nio reads it), not NULL")
    }

    @Test("a write's RETURNING clause is left out only where a list of columns ends the statement")
    func withoutReturning() {
        #expect(SQL.useChallenge.sqliteTextWithoutReturning?.hasSuffix("ON CONFLICT (expires_at, digest) DO NOTHING") == true)
        #expect(SQL.recordLogin.sqliteTextWithoutReturning?.hasSuffix("WHERE id = ?5 AND sign_count = ?6") == true)
        #expect(StoreStatement("DELETE FROM t RETURNING a, b_2").sqliteTextWithoutReturning == "DELETE FROM t")
        #expect(StoreStatement("COMMIT").sqliteTextWithoutReturning == nil)
        #expect(StoreStatement("DELETE FROM t RETURNING a + 1").sqliteTextWithoutReturning == nil)
        #expect(StoreStatement("SELECT 'RETURNING'").sqliteTextWithoutReturning == nil)
    }

    @Test("changed rows: SQLite's count of changes agrees with the rows RETURNING gives, for inserts that conflict and updates that miss")
    func changedRowsAgreeWithReturning() async throws {
        let connection = try DirectSQLite(path: ":memory:")
        let database = DirectSQLiteDatabase(connection: connection, logger: Logger(label: "test"), eventLoop: EmbeddedEventLoop())
        try connection.run(StoreStatement("CREATE TABLE k (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)"), values: []) { _ in }
        let insert = StoreStatement("INSERT INTO k (id, n) VALUES ($1, 0) ON CONFLICT (id) DO NOTHING RETURNING id")
        let bump = StoreStatement("UPDATE k SET n = n + 1 WHERE id = $1 AND n = $2 RETURNING id")
        let steps: [(StoreQuery, expected: Int)] = [
            (StoreQuery(insert, .integer(1)), 1), (StoreQuery(insert, .integer(1)), 0), (StoreQuery(insert, .integer(2)), 1),
            (StoreQuery(bump, .integer(1), .integer(0)), 1), (StoreQuery(bump, .integer(1), .integer(0)), 0),
            (StoreQuery(bump, .integer(3), .integer(0)), 0),
        ]
        // The same steps on a second database, counted by the rows RETURNING gives back.
        let reference = try DirectSQLite(path: ":memory:")
        try reference.run(StoreStatement("CREATE TABLE k (id INTEGER PRIMARY KEY, n INTEGER NOT NULL)"), values: []) { _ in }
        for (query, expected) in steps {
            var returned = 0
            try reference.run(query.statement, values: query.values) { _ in returned += 1 }
            #expect(returned == expected)
            #expect(try await database.changedRows(query) == expected)
        }
    }
}

/// Just enough of an SQLDatabase for SQLKit's serializer: PostgreSQL-style numbered placeholders.
private struct PlaceholderDatabase: SQLDatabase {
    struct Dialect: SQLDialect {
        var name: String { "placeholder" }
        var identifierQuote: any SQLExpression { SQLRaw("\"") }
        var supportsAutoIncrement: Bool { false }
        var autoIncrementClause: any SQLExpression { SQLRaw("") }
        func bindPlaceholder(at position: Int) -> any SQLExpression { SQLRaw("$\(position)") }
        func literalBoolean(_ value: Bool) -> any SQLExpression { SQLRaw(value ? "true" : "false") }
    }

    var logger: Logger { Logger(label: "placeholder") }
    var eventLoop: any EventLoop { EmbeddedEventLoop() }
    var dialect: any SQLDialect { Dialect() }
    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> ()) -> EventLoopFuture<Void> {
        eventLoop.makeSucceededVoidFuture()
    }
}
