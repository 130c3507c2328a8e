import ArgumentParser
import Foundation
import LatchkeyServer

/// `latchkey mds load FILE [--root PEM]` and `latchkey mds show [--aaguid UUID]`: the FIDO metadata (MDS3)
/// in the database (`MetadataConsole`). Offline by design: Latchkey never downloads the BLOB; a timer
/// does (curl -fsSo mds.jwt https://mds3.fidoalliance.org/), then runs `latchkey mds load mds.jwt`.
struct MDSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mds",
        abstract: "Load the FIDO metadata BLOB (MDS3) into the database, or show what is loaded.",
        discussion: """
            Registration with --attestation direct then takes an authenticator model's attestation roots from it, and \
            refuses models whose latest status report says they are compromised (REVOKED, ATTESTATION_KEY_COMPROMISE, \
            USER_VERIFICATION_BYPASS, USER_KEY_REMOTE_COMPROMISE, USER_KEY_PHYSICAL_COMPROMISE). Download the BLOB \
            yourself from https://mds3.fidoalliance.org/ and load it daily.
            """,
        subcommands: [Load.self, Show.self])

    struct Load: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify a metadata BLOB (signature, certificate chain, nextUpdate, legal header) and store its entries.",
            discussion: """
                A BLOB with a larger serial number (no) replaces the stored one; the same one changes nothing; an older one \
                is refused. Exit status 1 when the BLOB is refused.
                """)

        @Argument(help: "The BLOB as downloaded (a JWT).")
        var file: String
        @Option(help: "A PEM file of the root the BLOB's chain must lead to (default: the FIDO Alliance's, built in).")
        var root: String?
        @OptionGroup var database: AdminCommand.Database

        func run() async throws {
            try await MDSCommand.answer {
                try await database.withConfiguration(command: "mds load") { configuration in
                    try await MetadataConsole.load(configuration: configuration, file: file, root: root)
                }
            }
        }
    }

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the loaded BLOB (serial number, next update, models), or one model's entry.")

        @Option(help: "Show the model with this AAGUID: its description, latest status and roots.")
        var aaguid: String?
        @Flag(help: "Print JSON for scripts.")
        var json = false
        @OptionGroup var database: AdminCommand.Database

        func run() async throws {
            try await MDSCommand.answer {
                try await database.withConfiguration(command: "mds show") { configuration in
                    try await MetadataConsole.show(configuration: configuration, aaguid: aaguid, json: json)
                }
            }
        }
    }

    /// Prints the answer; a refusal goes to standard error with exit status 1.
    static func answer(_ body: () async throws -> String) async throws {
        do {
            print(try await body())
        } catch let refusal as MetadataConsole.Refusal {
            Output.printError("latchkey mds: \(refusal.description)")
            throw ExitCode(1)
        }
    }
}
