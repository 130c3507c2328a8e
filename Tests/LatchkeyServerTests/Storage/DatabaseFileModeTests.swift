import Foundation
@testable import LatchkeyDatabase
import Testing
@testable import LatchkeyServer

/// The database and its copies hold session hashes, recovery hashes and the wrapped server keys: no file
/// of them is readable by anyone but its owner at any moment, whatever the process umask (fourth
/// review, S4-8). A backup made with umask 022 was 0644 while `VACUUM INTO` wrote it, and a reader who
/// opened it then could read the whole copy later through that descriptor; a fresh database and its
/// `-wal`/`-shm` were 0644 for good.
@Suite("Database file modes", .serialized)
struct DatabaseFileModeTests {
    /// The mode bits of `path`, or nil when there is no file.
    static func mode(_ path: String) -> mode_t? {
        var status = stat()
        return stat(path, &status) == 0 ? status.st_mode & 0o777 : nil
    }

    /// Runs `body` under umask 022 (the usual shell's), the umask that exposed the files.
    static func withUmask022<T>(_ body: () throws -> T) rethrows -> T {
        let previous = umask(0o022)
        defer { umask(previous) }
        return try body()
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-modes-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test("a backup is never seen with group or other bits while it is written")
    func backupIsOwnerOnlyFromItsFirstByte() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("db.sqlite").path
        do {
            // Large enough that the copy takes a while: the poller below sees the file as it grows.
            let db = try DirectSQLite(path: source)
            try db.run("CREATE TABLE accounts (id TEXT)", binds: []) { _ in }
            try db.run("CREATE TABLE padding (b BLOB)", binds: []) { _ in }
            try db.run("WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 48) INSERT INTO padding SELECT randomblob(1048576) FROM n", binds: []) { _ in }
            db.close()
        }
        let target = directory.appendingPathComponent("copy.sqlite").path
        let seen = ModesSeen()
        let done = ModesSeen()
        let poller = Thread {
            while done.modes.isEmpty {
                if let mode = Self.mode(target) { seen.add(mode) }
            }
        }
        poller.start()
        let outcome = try Self.withUmask022 {
            defer { done.add(0) }
            return try SQLiteBackup.run(database: .sqlite(path: source), destination: target)
        }
        while !poller.isFinished { usleep(1000) }
        #expect(outcome.bytes > 40_000_000)
        #expect(!seen.modes.isEmpty, "the poller saw the copy")
        #expect(seen.modes.allSatisfy { $0 & 0o077 == 0 }, "modes seen: \(seen.modes.map { String($0, radix: 8) })")
        #expect(Self.mode(target) == 0o600)
    }

    @Test("a file left at the backup's name in the gap is not written into")
    func backupRefusesAFileThatAppeared() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let source = directory.appendingPathComponent("db.sqlite").path
        let db = try DirectSQLite(path: source)
        try db.run("CREATE TABLE accounts (id TEXT)", binds: []) { _ in }
        db.close()
        // A symbolic link planted at the name: followed, the copy would land where it points.
        let elsewhere = directory.appendingPathComponent("elsewhere.sqlite").path
        let target = directory.appendingPathComponent("copy.sqlite").path
        try FileManager.default.createSymbolicLink(atPath: target, withDestinationPath: elsewhere)
        #expect(throws: ServerConfiguration.Invalid.self) { try SQLiteBackup.run(database: .sqlite(path: source), destination: target) }
        #expect(!FileManager.default.fileExists(atPath: elsewhere))
    }

    @Test("a new database and its -wal and -shm are readable by their owner only")
    func newDatabaseIsOwnerOnly() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("latchkey.sqlite").path
        let db = try Self.withUmask022 {
            let db = try DirectSQLite(path: path)
            try db.run("CREATE TABLE t (x)", binds: []) { _ in }
            try db.run("INSERT INTO t VALUES (1)", binds: []) { _ in }
            return db
        }
        #expect(Self.mode(path) == 0o600)
        #expect(Self.mode(path + "-wal") == 0o600)
        #expect(Self.mode(path + "-shm") == 0o600)
        db.close()
    }

    @Test("an older database others can read loses their access when it is opened; its group's is left, with a warning")
    func olderDatabaseIsNarrowed() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("latchkey.sqlite").path
        let db = try DirectSQLite(path: path)
        try db.run("CREATE TABLE t (x)", binds: []) { _ in }
        db.close()
        chmod(path, 0o644)
        let connections = try DatabaseConnections.open(.sqlite(path: path), logger: .init(label: "test"))
        try await connections.shutdown()
        #expect(Self.mode(path) == 0o640)
        chmod(path, 0o604)
        let again = try DatabaseConnections.open(.sqlite(path: path), logger: .init(label: "test"), sqliteReadOnly: true)
        try await again.shutdown()
        #expect(Self.mode(path) == 0o604, "a reader changes nothing")
    }
}

/// What the poller thread saw, shared with the test's thread.
private final class ModesSeen: @unchecked Sendable {
    private let lock = NSLock()
    private var seen: Set<mode_t> = []

    var modes: Set<mode_t> { lock.withLock { seen } }
    func add(_ mode: mode_t) { _ = lock.withLock { seen.insert(mode) } }
}
