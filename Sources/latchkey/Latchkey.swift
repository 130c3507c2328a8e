import ArgumentParser
import Foundation

/// The `latchkey` command-line tool.
///
/// Exit statuses are the same for every command: 0 success, 1 refused (a verification failed, or the
/// server or authenticator said no), 2 usage or configuration error, 3 server unreachable. The argument
/// parser's own usage status (64) is folded into 2 so that scripts see one code for "called wrongly".
@main
struct Latchkey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latchkey",
        abstract: "Passkeys (WebAuthn) for apps: a relying-party server and its tools.",
        version: BuildInfo.description,
        subcommands: [
            ServeCommand.self, InitCommand.self, RegisterCommand.self, LoginCommand.self, LogoutCommand.self, AccountCommand.self, PasskeysCommand.self,
            AuthenticatorCommand.self, VerifyCommand.self, BenchCommand.self, KeysCommand.self, BackupCommand.self, MigrateCommand.self,
            AdminCommand.self, ApproveCommand.self, ExportCommand.self, ImportCommand.self, MDSCommand.self,
        ]
    )

    static func main() async {
        if let refusal = DashLeadingIdentifier.refusal(for: Array(CommandLine.arguments.dropFirst())) {
            FileHandle.standardError.write(Data((refusal + "\n").utf8))
            Self.exit(withError: ExitCode(2))
        }
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let code = exitCode(for: error)
            if code == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Self.exit(withError: ExitCode(2))
            }
            exit(withError: error)
        }
    }
}
