import LatchkeyRuntime
import Foundation
import NIOConcurrencyHelpers
import SQLKit

/// One of the store's SQL statements, written once (a `static let`) with PostgreSQL's numbered
/// placeholders `$1`, `$2`, …, and run with typed values (`StoreQuery`).
///
/// Why not SQLKit's string interpolation per call: that rebuilds and re-serializes the query on every
/// call, binds each value through a dynamic cast, and the SQLite driver then finds its prepared statement
/// by hashing the whole SQL text — together about a tenth of a login's server time. A statement object
/// is parsed once; the SQLite driver keeps its prepared form by the object's identity and binds the typed
/// values directly, while on PostgreSQL it is still an ordinary `SQLExpression` that SQLKit serializes.
package final class StoreStatement: Sendable {
    package enum Segment: Sendable, Equatable {
        case text(String)
        /// A zero-based index into the query's values.
        case value(Int)
    }

    /// The SQL as written, with PostgreSQL's placeholders.
    package let postgresText: String
    /// Set for the few statements PostgreSQL runs prepared (`PreparedOnPostgres`).
    package let preparedOnPostgres: (any PreparedOnPostgres.Type)?
    /// The pieces of the SQL text between placeholders, for SQLKit's serializer.
    package let segments: [Segment]
    /// The same SQL with SQLite's `?N` placeholders.
    package let sqliteText: String
    /// How many values a query of this statement must carry (the highest placeholder number).
    package let valueCount: Int
    /// The SQLite text without its closing `RETURNING …` clause, for a write whose caller only needs to
    /// know how many rows it changed (`SQLDatabase.changedRows`); nil when there is no such clause.
    package let sqliteTextWithoutReturning: String?
    /// What the statement does to a transaction, read from its first word (see `StatementEffect`).
    package let effect: StatementEffect

    package init(_ sql: String, preparedOnPostgres: (any PreparedOnPostgres.Type)? = nil) {
        self.postgresText = sql
        self.preparedOnPostgres = preparedOnPostgres
        var segments: [Segment] = []
        var sqlite = ""
        var text = ""
        var highest = 0
        var characters = sql[...]
        while let character = characters.popFirst() {
            let digits = character == "$" ? characters.prefix(while: \.isASCIIDigit) : ""
            guard let number = Int(digits), number > 0 else {
                text.append(character)
                sqlite.append(character)
                continue
            }
            characters = characters.dropFirst(digits.count)
            if !text.isEmpty { segments.append(.text(text)) }
            text = ""
            segments.append(.value(number - 1))
            sqlite += "?\(number)"
            highest = max(highest, number)
        }
        if !text.isEmpty { segments.append(.text(text)) }
        self.segments = segments
        self.sqliteText = sqlite
        self.valueCount = highest
        self.sqliteTextWithoutReturning = Self.withoutReturning(sqlite)
        self.effect = StatementEffect(sql)
    }

    /// `text` up to a last `RETURNING` that only a list of columns follows.
    private static func withoutReturning(_ text: String) -> String? {
        guard let clause = text.range(of: "RETURNING", options: .backwards) else { return nil }
        let columns = text[clause.upperBound...]
        guard columns.allSatisfy({ $0.isWhitespace || $0 == "," || $0 == "_" || ($0.isASCII && ($0.isLetter || $0.isNumber)) }),
              columns.contains(where: \.isLetter)
        else { return nil }
        return String(text[..<clause.lowerBound]).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

/// A value bound into a statement, in the column types the schema uses. An absent value keeps its type,
/// because PostgreSQL types every parameter: a NULL text is not a NULL bytea.
package enum StoreValue: Sendable, Equatable {
    case integer(Int64?)
    case text(String?)
    case blob([UInt8]?)

    package static func integer(_ flag: Bool) -> StoreValue { .integer(flag ? 1 : 0) }
    package static func milliseconds(_ date: Date) -> StoreValue { .integer(Timestamp.milliseconds(date)) }

    /// The value as SQLKit binds it (PostgreSQL).
    package var encodable: any Encodable & Sendable {
        switch self {
        case .integer(let number): return number
        case .text(let text): return text
        case .blob(let bytes): return bytes.map { Data($0) }
        }
    }
}

/// A statement with its values: what the store runs.
package struct StoreQuery: SQLExpression {
    package let statement: StoreStatement
    package let values: [StoreValue]

    package init(_ statement: StoreStatement, _ values: StoreValue...) {
        self.init(statement, values: values)
    }

    package init(_ statement: StoreStatement, values: [StoreValue]) {
        precondition(values.count == statement.valueCount, "a store statement's values do not match its placeholders")
        self.statement = statement
        self.values = values
    }

    package func serialize(to serializer: inout SQLSerializer) {
        for segment in statement.segments {
            switch segment {
            case .text(let text): serializer.write(text)
            case .value(let index): serializer.write(bind: values[index].encodable)
            }
        }
    }
}

extension SQLDatabase {
    /// Every row `query` returns.
    package func all(_ query: StoreQuery) async throws -> [any SQLRow] {
        if let prepared = query.statement.preparedOnPostgres, let postgres = self as? PostgresStoreDatabase {
            return try await prepared.rows(query.values, on: postgres)
        }
        let rows = NIOLockedValueBox<[any SQLRow]>([])
        try await execute(sql: query) { row in rows.withLockedValue { $0.append(row) } }
        return rows.withLockedValue { $0 }
    }

    /// The first row `query` returns, if any.
    package func first(_ query: StoreQuery) async throws -> (any SQLRow)? {
        try await all(query).first
    }

    /// Runs `query` for its effect.
    package func run(_ query: StoreQuery) async throws {
        try await execute(sql: query) { _ in }
    }

    /// How many rows `query` — an INSERT, UPDATE or DELETE ending in `RETURNING …` — changed. PostgreSQL
    /// counts the rows it returns; SQLite runs the statement without the clause and asks for its count of
    /// changes, because SQLite gathers the returned rows in a temporary table that it opens and closes for
    /// every execution (about 3 µs, twice per login: issue 16).
    package func changedRows(_ query: StoreQuery) async throws -> Int {
        if let direct = self as? DirectSQLiteDatabase, query.statement.sqliteTextWithoutReturning != nil {
            return try direct.countChanges(query)
        }
        return try await all(query).count
    }
}
