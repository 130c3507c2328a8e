import ArgumentParser
import LatchkeyServer

/// The shape every `latchkey admin` leaf command has, its `run()` written here once: open the database
/// its `database` options name (`AdminCommand.Database`), ask the console the one thing the command is
/// for (`answer`, which gets `--json` from the command's own flag where it has one), close the database,
/// print the answer, and turn a refusal into its sentence and exit status (1, or 2 for a broken field
/// rule). A command only declares its arguments and its `answer`.
protocol AdminSubcommand: AsyncParsableCommand {
    var database: AdminCommand.Database { get }
    /// What the console answers, as printed.
    func answer(_ console: AdminConsole) async throws -> String
}

extension AdminSubcommand {
    func run() async throws {
        try await database.run { try await answer($0) }
    }
}
