import LatchkeyRuntime
import CSQLite3
import Foundation

/// `latchkey backup`: a consistent copy of a SQLite database taken while `latchkey serve` keeps
/// serving. `VACUUM INTO` reads the database inside one read transaction, so the copy is the database as
/// of one commit, however many writes land meanwhile (a file copy of a live WAL database is not: the
/// database file and its log are copied at different moments). The copy is then opened and checked
/// (`PRAGMA integrity_check`), and with `keep` the oldest backups in its directory beyond that many are
/// removed.
///
/// The copy holds session hashes and the wrapped keys: it is its owner's alone from its first byte
/// (`OwnerOnlyFile`). It is created empty with mode 600 before `VACUUM INTO` writes into it (an empty file
/// is what `VACUUM INTO` accepts), and afterwards it must still be that file, this user's, mode 600.
/// Made by `VACUUM INTO` with the umask and narrowed after the copy, it was 0644 while written, and a
/// reader who opened it then read all of it later (fourth review, S4-8).
///
/// The key file that wraps the server's keys (`KeyFile`) is not in the copy: keep it apart, as the
/// README says — a backup and its key file together are what a restore needs.
public enum SQLiteBackup {
    public struct Outcome: Sendable {
        /// The copy.
        public let path: String
        public let bytes: Int64
        /// Accounts in the copy.
        public let accounts: Int
        public let seconds: Double
        /// Older backups removed by `keep`.
        public let removed: [String]
    }

    /// The file name of a backup made into a directory: sortable by time.
    package static func fileName(at date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        return "latchkey-\(formatter.string(from: date)).sqlite"
    }

    /// Copies `database` to `destination`: a new file, or a directory that gets a time-stamped one.
    public static func run(database: DatabaseLocation, destination: String, keep: Int? = nil, now: Date = Date()) throws -> Outcome {
        guard case .sqlite(let source) = database else {
            throw InvalidSetting(description: database.isPostgres
                ? "latchkey backup copies only SQLite databases: for PostgreSQL use pg_dump --format=custom --file=DEST 'postgres://…' (every table of the database), and keep the key file apart"
                : "an in-memory database cannot be backed up")
        }
        guard FileManager.default.fileExists(atPath: source) else {
            throw InvalidSetting(description: "there is no database at \(source)")
        }
        if let keep, keep < 1 { throw InvalidSetting(description: "--keep must be 1 or more, not \(keep)") }
        var isDirectory: ObjCBool = false
        let intoDirectory = FileManager.default.fileExists(atPath: destination, isDirectory: &isDirectory) && isDirectory.boolValue
        let target = intoDirectory ? (destination as NSString).appendingPathComponent(fileName(at: now)) : destination
        guard !FileManager.default.fileExists(atPath: target) else {
            throw InvalidSetting(description: "\(target) already exists; give a new file name or a directory")
        }
        if keep != nil, !intoDirectory {
            throw InvalidSetting(description: "--keep needs a directory to keep the backups in, not the file name \(destination)")
        }
        let started = Date()
        // O_EXCL | O_NOFOLLOW: a file or link that appeared at the name since the check is not written into.
        let fd = try OwnerOnlyFile.create("the backup", at: target)
        defer { close(fd) }
        do {
            let db = try Connection(path: source, readOnly: true)
            try db.execute("VACUUM INTO ?1", text: target)
        } catch {
            if OwnerOnlyFile.isStillOwnerOnly(fd, at: target) { unlink(target) }
            throw error
        }
        guard OwnerOnlyFile.isStillOwnerOnly(fd, at: target) else {
            throw InvalidSetting(description: "the copy \(target) was replaced, or its owner or mode changed, while it was written; do not use it")
        }
        let accounts: Int
        do {
            let copy = try Connection(path: target, readOnly: true)
            let check = try copy.text("PRAGMA integrity_check")
            guard check == "ok" else {
                throw InvalidSetting(description: "the copy \(target) failed its integrity check (\(check)); it was kept for inspection")
            }
            accounts = Int(try copy.text("SELECT count(*) FROM accounts")) ?? 0
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: target)[.size] as? Int64) ?? 0
        var removed: [String] = []
        if let keep, intoDirectory {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: destination)) ?? []
            let backups = names.filter { $0.hasPrefix("latchkey-") && $0.hasSuffix(".sqlite") }.sorted()
            for name in backups.dropLast(keep) {
                let path = (destination as NSString).appendingPathComponent(name)
                if (try? FileManager.default.removeItem(atPath: path)) != nil { removed.append(path) }
            }
        }
        return Outcome(path: target, bytes: bytes, accounts: accounts, seconds: Date().timeIntervalSince(started), removed: removed)
    }

    /// A plain SQLite connection for the copy and its checks (the server's own driver is for the store).
    private final class Connection {
        private var handle: OpaquePointer?

        init(path: String, readOnly: Bool) throws {
            let flags = readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)
            guard sqlite3_open_v2(path, &handle, flags, nil) == SQLITE_OK else {
                let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
                sqlite3_close(handle)
                throw InvalidSetting(description: "the database \(path) cannot be opened (\(message))")
            }
            sqlite3_busy_timeout(handle, 10_000)
        }

        deinit { sqlite3_close(handle) }

        /// Runs `sql` with `text` bound to ?1, stepping until it is done.
        func execute(_ sql: String, text: String) throws {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else { throw failure(sql) }
            defer { sqlite3_finalize(statement) }
            sqlite3_bind_text(statement, 1, text, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            var status = sqlite3_step(statement)
            while status == SQLITE_ROW { status = sqlite3_step(statement) }
            guard status == SQLITE_DONE else { throw failure(sql) }
        }

        /// The first column of the first row of `sql`, as text.
        func text(_ sql: String) throws -> String {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else { throw failure(sql) }
            defer { sqlite3_finalize(statement) }
            guard sqlite3_step(statement) == SQLITE_ROW, let value = sqlite3_column_text(statement, 0) else { throw failure(sql) }
            return String(cString: value)
        }

        private func failure(_ sql: String) -> InvalidSetting {
            InvalidSetting(description: "\(sql.split(separator: " ").first ?? "") failed: \(String(cString: sqlite3_errmsg(handle)))")
        }
    }
}
