import ArgumentParser
import LatchkeyServer

/// `latchkey migrate [--dry-run]`: the database's schema version, this binary's, and each migration the
/// database lacks with the SQL it runs there (`MigrationConsole`); without `--dry-run`, applies them as
/// `latchkey serve` does at start.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Show the migrations the database lacks, with their SQL (--dry-run), or apply them.",
        discussion: """
            latchkey serve applies them itself at start; this shows an upgrade before it is made, or makes it ahead of the \
            start. --dry-run changes nothing (a SQLite file is opened read-only). A database migrated by a newer Latchkey: \
            exit status 2. Take a backup first (latchkey backup, or pg_dump).
            """)

    @OptionGroup var database: AdminCommand.Database
    @Flag(help: "Print what would change; change nothing.")
    var dryRun = false

    func run() async throws {
        let text = try await database.withConfiguration(command: "migrate") { configuration in
            dryRun
                ? MigrationConsole.text(try await MigrationConsole.plan(configuration: configuration), applied: false)
                : MigrationConsole.text(try await MigrationConsole.apply(configuration: configuration), applied: true)
        }
        print(text)
    }
}
