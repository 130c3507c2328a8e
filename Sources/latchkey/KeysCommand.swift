import ArgumentParser
import Foundation
import LatchkeyDatabase
import LatchkeyServer

/// `latchkey keys rotate`: after a leak of the database (or of the database and its key file), new
/// secret keys for everything the server signs or seals (`KeyRotation`).
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "The server's secret keys (challenge sealing, access-token signing).",
        subcommands: [Rotate.self])

    struct Rotate: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete every secret key in the database and write a new key file; stop every instance first.",
            discussion: """
                What people notice: ceremonies in progress fail once (start again); access tokens signed before are no \
                longer accepted once backends fetch the new key set (cached for up to 10 minutes); sessions stay signed in. \
                Copy the new key file to every instance on the database, then start them.
                """)

        @Option(help: "sqlite:PATH (default sqlite:latchkey.sqlite) or postgres://user@host:port/database. Or LATCHKEY_DATABASE.")
        var database: String?
        @Option(name: .customLong("key-file"), help: "The key file to replace (default as for serve). Or LATCHKEY_KEY_FILE.")
        var keyFile: String?

        func run() async throws {
            let environment = ProcessInfo.processInfo.environment
            var configuration = ServerConfiguration()
            do {
                if let text = database ?? environment["LATCHKEY_DATABASE"].flatMap({ $0.isEmpty ? nil : $0 }) {
                    configuration.database = try DatabaseLocation(parsing: text)
                }
                configuration.keyFile = keyFile ?? environment["LATCHKEY_KEY_FILE"].flatMap { $0.isEmpty ? nil : $0 }
                let outcome = try await KeyRotation.rotate(configuration: configuration)
                print("Deleted \(outcome.deletedKeys) secret key\(outcome.deletedKeys == 1 ? "" : "s") from \(configuration.database) and wrote a new key file \(outcome.keyFile).")
                print("Start the instances (each with this key file): they make new keys. Sessions stay signed in.")
            } catch let invalid as ServerConfiguration.Invalid {
                Output.printError("latchkey keys rotate: \(ServeCommand.sentence(invalid.description))")
                throw ExitCode(2)
            }
        }
    }
}
