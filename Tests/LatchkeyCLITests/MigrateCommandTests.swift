import Foundation
import Testing

/// `latchkey migrate` on a copy of the committed schema-9 database (`Tests/System/Upgrade/fixtures`, made by the
/// release before the operator's tools): the dry run lists what is missing with its SQL and leaves every
/// byte as it was; without `--dry-run` it applies them once. `Tests/System/Upgrade` then serves and signs in on it.
@Suite("latchkey migrate")
struct MigrateCommandTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("System/Upgrade/fixtures/latchkey-v9.sqlite")

    /// A fresh directory holding a copy of the fixture; removed by the caller.
    static func copy() throws -> (directory: URL, database: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let database = directory.appendingPathComponent("latchkey.sqlite")
        try FileManager.default.copyItem(at: fixture, to: database)
        return (directory, database)
    }

    @Test("--dry-run names both versions, lists version 10 and later with their SQL, and changes no byte; migrate applies them once")
    func dryRunThenApply() throws {
        let (directory, database) = try Self.copy()
        defer { try? FileManager.default.removeItem(at: directory) }
        let before = try Data(contentsOf: database)

        var run = try LatchkeyBinary.run(["migrate", "--dry-run", "--database", "sqlite:\(database.path)"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Database: sqlite:\(database.path) (SQLite)"), "\(run.stdout)")
        #expect(run.stdout.contains("Schema version: 9; this latchkey knows up to"), "\(run.stdout)")
        #expect(run.stdout.contains("(dry run: nothing was changed)"), "\(run.stdout)")
        #expect(run.stdout.contains("\nVersion 10: Operating Latchkey"), "\(run.stdout)")
        #expect(run.stdout.contains("\n    ALTER TABLE accounts ADD COLUMN disabled_at BIGINT;\n"), "\(run.stdout)")
        #expect(run.stdout.contains("\n        id INTEGER PRIMARY KEY,\n"), "SQLite's flavor of the audit table: \(run.stdout)")
        #expect(!run.stdout.contains("Version 9:"), "\(run.stdout)")
        #expect(try Data(contentsOf: database) == before, "the dry run changed the database file")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(files == ["latchkey.sqlite"], "the dry run made no -wal or -shm beside it: \(files)")

        // The same database named by LATCHKEY_DATABASE, as `serve` and `admin` read it.
        run = try LatchkeyBinary.run(["migrate", "--dry-run"], environment: ["LATCHKEY_DATABASE": "sqlite:\(database.path)"])
        #expect(run.status == 0 && run.stdout.contains("Schema version: 9;"), "\(run.stderr)\(run.stdout)")

        run = try LatchkeyBinary.run(["migrate", "--database", "sqlite:\(database.path)"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Applied "), "\(run.stdout)")
        #expect(run.stdout.contains("\nVersion 10: "), "\(run.stdout)")
        #expect(run.stdout.contains("The database is at schema version"), "\(run.stdout)")

        run = try LatchkeyBinary.run(["migrate", "--dry-run", "--database", "sqlite:\(database.path)"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Nothing to do: the schema is up to date."), "\(run.stdout)")
        #expect(!run.stdout.contains("Version 10:"), "\(run.stdout)")
    }

    @Test("a path with no database is refused with exit status 2, and nothing is created there")
    func missingDatabase() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-migrate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("typo.sqlite").path
        for arguments in [["migrate", "--dry-run"], ["migrate"]] {
            let run = try LatchkeyBinary.run(arguments + ["--database", "sqlite:\(path)"])
            #expect(run.status == 2)
            #expect(run.stderr.contains("latchkey migrate: There is no SQLite database at \(path)"), "\(run.stderr)")
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }
}
