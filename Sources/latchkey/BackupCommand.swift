import ArgumentParser
import Foundation
import LatchkeyDatabase
import LatchkeyServer

/// `latchkey backup DEST`: an online, checked copy of the SQLite database (`SQLiteBackup`), safe while
/// `latchkey serve` runs; with `--keep N` (DEST a directory) a daily timer keeps the newest N.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the SQLite database while the server runs, check the copy, and say how big it is.",
        discussion: """
            DEST is a new file, or a directory that gets latchkey-YYYYMMDDTHHMMSSZ.sqlite. The copy is one consistent moment of \
            the database (VACUUM INTO), passes PRAGMA integrity_check, and is readable by its owner only. The key file is not \
            in it: keep it apart (a restore needs both). For PostgreSQL use pg_dump (this command says how).
            """)

    @Argument(help: "Where the copy goes: a new file, or a directory.")
    var destination: String
    @Option(help: "sqlite:PATH (default sqlite:latchkey.sqlite). Or LATCHKEY_DATABASE.")
    var database: String?
    @Option(help: "With DEST a directory: keep the newest N backups there, remove older ones.")
    var keep: Int?

    func run() async throws {
        do {
            let text = database ?? ProcessInfo.processInfo.environment["LATCHKEY_DATABASE"].flatMap { $0.isEmpty ? nil : $0 } ?? "sqlite:latchkey.sqlite"
            let outcome = try SQLiteBackup.run(database: try DatabaseLocation(parsing: text), destination: destination, keep: keep)
            let size = String(format: "%.1f MB in %.2f s", Double(outcome.bytes) / 1_000_000, outcome.seconds)
            print("Backed up \(outcome.accounts) accounts to \(outcome.path): \(size), integrity_check ok.")
            for path in outcome.removed { print("Removed the older backup \(path).") }
        } catch let invalid as ServerConfiguration.Invalid {
            Output.printError("latchkey backup: \(ServeCommand.sentence(invalid.description))")
            throw ExitCode(2)
        }
    }
}
