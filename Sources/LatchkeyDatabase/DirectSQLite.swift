import LatchkeyRuntime
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
package final class DirectSQLite: @unchecked Sendable {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
        /// SQLite's primary result code (SQLITE_MISUSE for a closed database).
        package var code: Int32 = SQLITE_ERROR

        /// The database cannot do work right now — closed, locked past the busy time-out, an I/O error,
        /// a full disk, a file that cannot be opened — as opposed to a statement that is wrong.
        package var isUnavailable: Bool {
            [SQLITE_MISUSE, SQLITE_BUSY, SQLITE_LOCKED, SQLITE_IOERR, SQLITE_FULL, SQLITE_CANTOPEN, SQLITE_READONLY].contains(code)
        }
    }

    private var handle: OpaquePointer?
    private var statements: [String: PreparedStatement] = [:]
    private var storeStatements: [ObjectIdentifier: (statement: StoreStatement, prepared: PreparedStatement)] = [:]
    /// The same statements without their `RETURNING` clause, for `changes(_:values:)`.
    private var countingStatements: [ObjectIdentifier: (statement: StoreStatement, prepared: PreparedStatement)] = [:]
    package let lock = AsyncLock()

    /// A prepared statement and its result columns, looked up once per SQL text rather than per row.
    private struct PreparedStatement {
        let handle: OpaquePointer
        let columns: DirectSQLiteRow.Columns
    }

    /// `readOnly`: an existing file, opened for reading only (`latchkey migrate --dry-run`): nothing is
    /// written or checkpointed, and the journal mode is left as it is. A reader of a WAL database creates
    /// its `-wal` and `-shm` when they are missing, and cannot remove them after; made by root beside a
    /// service's database, they would lock its own user out. So when there is no `-wal` (no connection has
    /// the database open, or there would be one) the file is opened `immutable`, which creates nothing.
    package init(path: String, readOnly: Bool = false) throws {
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        var name = path
        if readOnly, !FileManager.default.fileExists(atPath: path + "-wal"),
           let escaped = path.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#%")))
        {
            name = "file:\(escaped)?immutable=1"
        }
        if !readOnly, path != ":memory:", !FileManager.default.fileExists(atPath: path) {
            // Made here with mode 600 rather than by SQLite with the umask (0644 under 022): SQLite gives the
            // -wal and -shm it creates the database's own mode, so all three are the owner's alone
            // (`SQLiteFileModes`). A database another process made meanwhile is opened as it is.
            OwnerOnlyFile.createEmpty(at: path)
        }
        var db: OpaquePointer?
        let status = sqlite3_open_v2(name, &db, flags, nil)
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
        let pragmas = readOnly ? ["PRAGMA busy_timeout = 10000"] : [
            "PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL", "PRAGMA foreign_keys = ON", "PRAGMA busy_timeout = 10000",
            "PRAGMA wal_autocheckpoint = 10000", "PRAGMA journal_size_limit = 67108864",
        ]
        for pragma in pragmas {
            try run(pragma, binds: []) { _ in }
        }
    }

    deinit { close() }

    package func close() {
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
    package func run(_ statement: StoreStatement, values: [StoreValue], onRow: (any SQLRow) -> Void) throws {
        guard let handle else { throw Failure(description: "the database is closed", code: SQLITE_MISUSE) }
        let prepared = try prepared(statement, text: statement.sqliteText, in: &storeStatements, on: handle)
        try step(prepared, on: handle, onRow: onRow, bind: Self.binding(values))
    }

    /// Runs one of the store's writes without its `RETURNING` clause and answers how many rows it changed
    /// (`sqlite3_changes`); the caller holds `lock`.
    package func changes(_ statement: StoreStatement, values: [StoreValue]) throws -> Int {
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
            // An index loop: a debug build's `enumerated()` allocated per value.
            var index = 0
            while index < values.count {
                try SQLiteBinding.bind(values[index], to: statement, at: Int32(index + 1))
                index += 1
            }
        }
    }

    /// Runs a statement SQLKit serialized (migrations, tests); the caller holds `lock`.
    package func run(_ sql: String, binds: [any Encodable & Sendable], onRow: (any SQLRow) -> Void) throws {
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
            // An index loop: a debug build's `map` over a range allocated per column.
            var values: [SQLiteBinding.Value] = []
            values.reserveCapacity(prepared.columns.names.count)
            var column: Int32 = 0
            while column < Int32(prepared.columns.names.count) {
                values.append(SQLiteBinding.value(of: statement, column: column))
                column += 1
            }
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
