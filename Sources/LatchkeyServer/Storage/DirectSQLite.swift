import CSQLite3
import Foundation
import Logging
import NIOCore
import NIOPosix
import SQLKit

/// Latchkey's SQLite driver for SQLKit: one connection to the system SQLite, used synchronously on the
/// calling task's thread. A statement takes microseconds; running it where the request already runs
/// avoids the three thread hand-offs per statement (task → event loop → thread pool → back) that a
/// thread-pool driver costs, which dominated the server's CPU time per login. Statements are prepared
/// once and reused.
///
/// All access is serialized by an async lock that a unit of work (one statement, or a transaction) holds:
/// SQLite has one writer at a time anyway, and the work under the lock never suspends.
final class DirectSQLite: @unchecked Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
        /// SQLite's primary result code (SQLITE_MISUSE for a closed database).
        var code: Int32 = SQLITE_ERROR

        /// The database cannot do work right now — closed, locked past the busy time-out, an I/O error,
        /// a full disk, a file that cannot be opened — as opposed to a statement that is wrong.
        var isUnavailable: Bool {
            [SQLITE_MISUSE, SQLITE_BUSY, SQLITE_LOCKED, SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_READONLY].contains(code)
        }
    }

    private var handle: OpaquePointer?
    private var statements: [String: PreparedStatement] = [:]
    private var storeStatements: [ObjectIdentifier: (statement: StoreStatement, prepared: PreparedStatement)] = [:]
    /// The same statements without their `RETURNING` clause, for `changes(_:values:)`.
    private var countingStatements: [ObjectIdentifier: (statement: StoreStatement, prepared: PreparedStatement)] = [:]
    let lock = AsyncLock()

    /// A prepared statement and its result columns, looked up once per SQL text rather than per row.
    private struct PreparedStatement {
        let handle: OpaquePointer
        let columns: DirectSQLiteRow.Columns
    }

    init(path: String) throws {
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        var db: OpaquePointer?
        let status = sqlite3_open_v2(path, &db, flags, nil)
        guard status == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close(db)
            throw Failure(description: "unable to open database file \(path): \(message)", code: SQLITE_CANTOPEN)
        }
        handle = db
        // WAL with synchronous NORMAL: a commit is a write to the log, synced at checkpoints; durable
        // across a crash of the process, at most the last commits lost with the machine's power.
        // Checkpoints (two fsyncs each) every 10 000 log pages instead of SQLite's 1 000: at the default
        // they were a tenth of the database's cost per login. The log is cut back to 64 MiB after each.
        let pragmas = [
            "PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA foreign_keys = ON", "PRAGMA busy_timeout = 10000",
            "PRAGMA wal_autocheckpoint = 10000", "PRAGMA journal_size_limit = 67108864",
        ]
        for pragma in pragmas {
            try run(pragma, binds: []) { _ in }
        }
    }

    deinit { close() }

    func close() {
        for statement in statements.values { sqlite3_finalize(statement.handle) }
        for statement in storeStatements.values { sqlite3_finalize(statement.prepared.handle) }
        for statement in countingStatements.values { sqlite3_finalize(statement.prepared.handle) }
        statements = [:]
        storeStatements = [:]
        countingStatements = [:]
        if let handle { sqlite3_close(handle) }
        handle = nil
    }

    /// Runs one of the store's statements; the caller holds `lock`.
    func run(_ statement: StoreStatement, values: [StoreValue], onRow: (any SQLRow) -> Void) throws {
        guard let handle else { throw Failure(description: "the database is closed", code: SQLITE_MISUSE) }
        let prepared = try prepared(statement, text: statement.sqliteText, in: &storeStatements, on: handle)
        try step(prepared, on: handle, onRow: onRow, bind: Self.binding(values))
    }

    /// Runs one of the store's writes without its `RETURNING` clause and answers how many rows it changed
    /// (`sqlite3_changes`); the caller holds `lock`.
    func changes(_ statement: StoreStatement, values: [StoreValue]) throws -> Int {
        guard let handle else { throw Failure(description: "the database is closed", code: SQLITE_MISUSE) }
        guard let text = statement.sqliteTextWithoutReturning else {
            throw Failure(description: "the statement has no RETURNING clause to count by")
        }
        let prepared = try prepared(statement, text: text, in: &countingStatements, on: handle)
        try step(prepared, on: handle, onRow: { _ in }, bind: Self.binding(values))
        return Int(sqlite3_changes(handle))
    }

    /// The prepared form of one of the store's statements, found by the statement object's identity (the
    /// table keeps the object alive, so the identity is never reused), prepared from `text` the first time.
    private func prepared(
        _ statement: StoreStatement, text: String,
        in table: inout [ObjectIdentifier: (statement: StoreStatement, prepared: PreparedStatement)], on handle: OpaquePointer
    ) throws -> PreparedStatement {
        let key = ObjectIdentifier(statement)
        if let known = table[key] { return known.prepared }
        let prepared = try prepare(text, on: handle)
        table[key] = (statement, prepared)
        return prepared
    }

    /// Binds the store's typed values to their positions.
    private static func binding(_ values: [StoreValue]) -> (OpaquePointer) throws -> Void {
        { statement in
            for (index, value) in values.enumerated() {
                try SQLiteBinding.bind(value, to: statement, at: Int32(index + 1))
            }
        }
    }

    /// Runs a statement SQLKit serialized (migrations, tests); the caller holds `lock`.
    func run(_ sql: String, binds: [any Encodable & Sendable], onRow: (any SQLRow) -> Void) throws {
        guard let handle else { throw Failure(description: "the database is closed", code: SQLITE_MISUSE) }
        let prepared: PreparedStatement
        if let known = statements[sql] {
            prepared = known
        } else {
            prepared = try prepare(sql, on: handle)
            statements[sql] = prepared
        }
        try step(prepared, on: handle, onRow: onRow) { statement in
            for (index, bind) in binds.enumerated() {
                try SQLiteBinding.bind(bind, to: statement, at: Int32(index + 1))
            }
        }
    }

    /// Binds the values, steps through the rows and leaves the statement reset for its next use.
    private func step(
        _ prepared: PreparedStatement, on handle: OpaquePointer, onRow: (any SQLRow) -> Void, bind: (OpaquePointer) throws -> Void
    ) throws {
        let statement = prepared.handle
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        try bind(statement)
        while true {
            let status = sqlite3_step(statement)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else {
                throw Failure(description: "step failed: \(String(cString: sqlite3_errmsg(handle)))", code: status & 0xFF)
            }
            let values = (0..<Int32(prepared.columns.names.count)).map { SQLiteBinding.value(of: statement, column: $0) }
            onRow(DirectSQLiteRow(columns: prepared.columns, values: values))
        }
    }

    private func prepare(_ sql: String, on handle: OpaquePointer) throws -> PreparedStatement {
        var prepared: OpaquePointer?
        guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &prepared, nil) == SQLITE_OK, let prepared else {
            throw Failure(description: "prepare failed: \(String(cString: sqlite3_errmsg(handle)))", code: sqlite3_errcode(handle) & 0xFF)
        }
        let names = (0..<sqlite3_column_count(prepared)).map { String(cString: sqlite3_column_name(prepared, $0)) }
        return PreparedStatement(handle: prepared, columns: DirectSQLiteRow.Columns(names: names))
    }
}

/// One unit of work's view of the connection, as SQLKit's `SQLDatabase`.
struct DirectSQLiteDatabase: SQLDatabase {
    let connection: DirectSQLite
    let logger: Logger
    let eventLoop: any EventLoop
    var dialect: any SQLDialect { SQLiteSyntax() }
    var version: (any SQLDatabaseReportedVersion)? { nil }
    var queryLogLevel: Logger.Level? { nil }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> ()) -> EventLoopFuture<Void> {
        do {
            try run(query, onRow: onRow)
            return eventLoop.makeSucceededVoidFuture()
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
    }

    func execute(sql query: any SQLExpression, _ onRow: @escaping @Sendable (any SQLRow) -> ()) async throws {
        try run(query, onRow: onRow)
    }

    /// See `SQLDatabase.changedRows`.
    func countChanges(_ query: StoreQuery) throws -> Int {
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

/// SQLite's SQL syntax as SQLKit needs it for the store's raw queries: numbered `?N` binds, double-quoted
/// identifiers, RETURNING (SQLite ≥ 3.35).
struct SQLiteSyntax: SQLDialect {
    var name: String { "sqlite" }
    var identifierQuote: any SQLExpression { SQLRaw("\"") }
    var literalStringQuote: any SQLExpression { SQLRaw("'") }
    func bindPlaceholder(at position: Int) -> any SQLExpression { SQLRaw("?\(position)") }
    func literalBoolean(_ value: Bool) -> any SQLExpression { SQLRaw(value ? "1" : "0") }
    var literalDefault: any SQLExpression { SQLLiteral.null }
    var supportsAutoIncrement: Bool { false }
    var autoIncrementClause: any SQLExpression { SQLRaw("AUTOINCREMENT") }
    var enumSyntax: SQLEnumSyntax { .unsupported }
    var supportsReturning: Bool { true }
}

/// Values in and out of SQLite for the types the store uses.
enum SQLiteBinding {
    enum Value: Sendable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)
        case blob([UInt8])
    }

    /// SQLITE_TRANSIENT: SQLite copies the bytes before the call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Binds one of the value types the store uses. The common ones are tried first: each `as?` is a
    /// dynamic cast, and an absent optional is only recognised after the concrete types have failed.
    static func bind(_ value: any Encodable & Sendable, to statement: OpaquePointer, at index: Int32) throws {
        let status: Int32
        switch value {
        case let data as Data:
            status = data.withUnsafeBytes { bindBlob($0, to: statement, at: index) }
        case let text as String:
            status = bindText(text, to: statement, at: index)
        case let number as Int64:
            status = sqlite3_bind_int64(statement, index, number)
        case let number as Int:
            status = sqlite3_bind_int64(statement, index, Int64(number))
        case let bytes as [UInt8]:
            status = bytes.withUnsafeBytes { bindBlob($0, to: statement, at: index) }
        case let number as Int32:
            status = sqlite3_bind_int64(statement, index, Int64(number))
        case let flag as Bool:
            status = sqlite3_bind_int64(statement, index, flag ? 1 : 0)
        case let number as Double:
            status = sqlite3_bind_double(statement, index, number)
        case let optional as any OptionalBinding where optional.isNone:
            status = sqlite3_bind_null(statement, index)
        default:
            throw DirectSQLite.Failure(description: "cannot bind a value of type \(type(of: value))")
        }
        guard status == SQLITE_OK else { throw DirectSQLite.Failure(description: "bind failed with status \(status)") }
    }

    static func bind(_ value: StoreValue, to statement: OpaquePointer, at index: Int32) throws {
        let status: Int32
        switch value {
        case .integer(let number?):
            status = sqlite3_bind_int64(statement, index, number)
        case .text(let text?):
            status = bindText(text, to: statement, at: index)
        case .blob(let bytes?):
            status = bytes.withUnsafeBytes { bindBlob($0, to: statement, at: index) }
        case .integer(nil), .text(nil), .blob(nil):
            status = sqlite3_bind_null(statement, index)
        }
        guard status == SQLITE_OK else { throw DirectSQLite.Failure(description: "bind failed with status \(status)") }
    }

    /// Text with its UTF-8 byte length: with -1 SQLite stops at the first NUL, so `before\0after` would be
    /// stored as `before` while the caller was told it was saved as sent.
    private static func bindText(_ text: String, to statement: OpaquePointer, at index: Int32) -> Int32 {
        var text = text
        return text.withUTF8 { utf8 in
            guard let address = utf8.baseAddress else { return sqlite3_bind_text(statement, index, "", 0, transient) }
            return address.withMemoryRebound(to: CChar.self, capacity: utf8.count) {
                sqlite3_bind_text(statement, index, $0, Int32(utf8.count), transient)
            }
        }
    }

    /// An empty buffer has no address, and SQLite binds a null address as NULL: an empty blob is bound
    /// as a zero-length blob instead.
    private static func bindBlob(_ bytes: UnsafeRawBufferPointer, to statement: OpaquePointer, at index: Int32) -> Int32 {
        guard let address = bytes.baseAddress, !bytes.isEmpty else { return sqlite3_bind_zeroblob(statement, index, 0) }
        return sqlite3_bind_blob(statement, index, address, Int32(bytes.count), transient)
    }

    static func value(of statement: OpaquePointer, column: Int32) -> Value {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            // Read by byte count, not up to a NUL, so text comes back exactly as it was bound.
            // sqlite3_column_text first, then the byte count of what it returned (SQLite's documented order).
            let pointer = sqlite3_column_text(statement, column)
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let pointer else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let pointer = sqlite3_column_blob(statement, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: pointer, count: count)))
        default: return .null
        }
    }
}

/// Lets a bind value say that it is an absent optional (bound as NULL) without reflection.
private protocol OptionalBinding {
    var isNone: Bool { get }
}

extension Optional: OptionalBinding {
    var isNone: Bool { self == nil }
}

/// A result row, decoded for the column types the store reads.
struct DirectSQLiteRow: SQLRow {
    /// A statement's column names and their positions, shared by all its rows.
    final class Columns: Sendable {
        let names: [String]
        let positions: [String: Int]

        init(names: [String]) {
            self.names = names
            // A name that occurs twice keeps its first position, as SQLite's own look-up would.
            self.positions = Dictionary(names.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        }
    }

    let columns: Columns
    let values: [SQLiteBinding.Value]

    var allColumns: [String] { columns.names }

    func contains(column: String) -> Bool { columns.positions[column] != nil }

    private func value(_ column: String) throws -> SQLiteBinding.Value {
        guard let position = columns.positions[column] else { throw DirectSQLite.Failure(description: "no column \(column)") }
        return values[position]
    }

    func decodeNil(column: String) throws -> Bool {
        if case .null = try value(column) { return true }
        return false
    }

    /// The types a column is asked for, as identities found once: comparing `D.self == Int?.self` and
    /// boxing into `Any?` made the runtime look up generic metadata for every column decoded.
    private enum Wanted {
        static let int = ObjectIdentifier(Int.self), optionalInt = ObjectIdentifier(Int?.self)
        static let bool = ObjectIdentifier(Bool.self), optionalBool = ObjectIdentifier(Bool?.self)
        static let string = ObjectIdentifier(String.self), optionalString = ObjectIdentifier(String?.self)
        static let double = ObjectIdentifier(Double.self), optionalDouble = ObjectIdentifier(Double?.self)
        static let data = ObjectIdentifier(Data.self), optionalData = ObjectIdentifier(Data?.self)
    }

    func decode<D: Decodable>(column: String, as type: D.Type) throws -> D {
        let wanted = ObjectIdentifier(D.self)
        let decoded: Any
        switch try value(column) {
        case .null:
            // Only a NULL is an optional's nil.
            if let none = Optional<Any>.none as? D { return none }
            throw Self.mismatch(column, D.self)
        // The conversions are sqlite-nio's (SQLiteDriverComparisonTests holds them to it): a number read
        // as text is its decimal form, an integer read as a double is widened, only 0 and 1 are booleans.
        case .integer(let n):
            if wanted == Wanted.int || wanted == Wanted.optionalInt {
                decoded = Int(n)
            } else if wanted == Wanted.bool || wanted == Wanted.optionalBool {
                guard n == 0 || n == 1 else { throw Self.mismatch(column, D.self) }
                decoded = n == 1
            } else if wanted == Wanted.string || wanted == Wanted.optionalString {
                decoded = String(n)
            } else if wanted == Wanted.double || wanted == Wanted.optionalDouble {
                decoded = Double(n)
            } else {
                decoded = n
            }
        case .real(let d):
            decoded = wanted == Wanted.string || wanted == Wanted.optionalString ? String(d) : d
        case .text(let s):
            decoded = s
        case .blob(let bytes):
            guard wanted == Wanted.data || wanted == Wanted.optionalData else { throw Self.mismatch(column, D.self) }
            decoded = Data(bytes)
        }
        // A value that does not convert is refused, optional or not.
        if let typed = decoded as? D { return typed }
        throw Self.mismatch(column, D.self)
    }

    private static func mismatch(_ column: String, _ type: Any.Type) -> DirectSQLite.Failure {
        DirectSQLite.Failure(description: "column \(column) does not hold a \(type)")
    }
}

/// A lock that waits by suspending, for work that spans several statements (a transaction); holders do
/// not suspend while they hold it, so it is held for microseconds.
final class AsyncLock: @unchecked Sendable {
    private let state = NSLock()
    private var locked = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func acquire() async {
        if tryAcquire() { return }
        await withCheckedContinuation { continuation in
            enqueue(continuation)
        }
    }

    private func tryAcquire() -> Bool {
        state.withLock {
            guard !locked else { return false }
            locked = true
            return true
        }
    }

    /// Queues the waiter, unless the lock was released in the meantime: then it is taken at once.
    private func enqueue(_ continuation: CheckedContinuation<Void, Never>) {
        let acquired: Bool = state.withLock {
            if !locked {
                locked = true
                return true
            }
            waiters.append(continuation)
            return false
        }
        if acquired { continuation.resume() }
    }

    func release() {
        let next: CheckedContinuation<Void, Never>? = state.withLock {
            if waiters.isEmpty {
                locked = false
                return nil
            }
            return waiters.removeFirst()
        }
        next?.resume() // ownership passes to the next waiter
    }
}
