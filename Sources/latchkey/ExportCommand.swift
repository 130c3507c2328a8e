import ArgumentParser
import Foundation
import LatchkeyRuntime
import LatchkeyServer

/// `latchkey export` and `latchkey import` (`DatabaseExport`): the database as a JSON Lines document, to
/// move between SQLite and PostgreSQL or to rebuild after a loss.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write the database as a document any Latchkey database can be rebuilt from (JSON Lines, to standard output).",
        discussion: """
            Accounts, passkeys (counters and flags), server keys (still wrapped: the import's server needs the same key file), \
            admin keys and recovery grants (hashes), OpenID Connect clients, consents, grants and refresh tokens; sessions and \
            the audit trail with --sessions and --audit. Stop the server first for a copy of one moment.
            """)

    @OptionGroup var database: AdminCommand.Database
    @Flag(help: "Also export the sessions (people stay signed in after the import).")
    var sessions = false
    @Flag(help: "Also export the audit trail.")
    var audit = false
    @Option(help: ArgumentHelp("Write the document to this new file, readable by you only, instead of standard output.", valueName: "file"))
    var output: String?

    func run() async throws {
        var options: Set<ExportFormat.Option> = []
        if sessions { options.insert(.sessions) }
        if audit { options.insert(.audit) }
        let output: FileHandle
        do {
            output = try Self.destination(self.output)
        } catch {
            Output.printError("latchkey export: \(ServeCommand.sentence(error.description))")
            throw ExitCode(2)
        }
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 16)
        do {
            let summary = try await database.withConfiguration(command: "export") { configuration in
                try await DatabaseExport.export(configuration: configuration, including: options) { line in
                    buffer.append(contentsOf: line)
                    if buffer.count >= 1 << 16 {
                        try output.write(contentsOf: buffer)
                        buffer.removeAll(keepingCapacity: true)
                    }
                }
            }
            try output.write(contentsOf: buffer)
            Output.printError("latchkey export: \(summary.text.isEmpty ? "nothing to export" : summary.text)")
        } catch {
            // A document cut short is not left behind to be taken for a whole one.
            if let path = self.output { unlink(path) }
            throw error
        }
    }

    /// Where the document goes. It holds hashes and the wrapped keys, so it is its owner's alone from its
    /// first byte (fourth review, S4-8): `--output` creates a new file with mode 600 (`OwnerOnlyFile`).
    /// Standard output redirected to a file others can read is refused before anything is written: the
    /// shell made that file with the umask, and a reader who opened it already would read the document
    /// through that descriptor whatever its mode becomes. A pipe or a terminal is the caller's to guard.
    static func destination(_ path: String?) throws(ServerConfiguration.Invalid) -> FileHandle {
        if let path {
            return FileHandle(fileDescriptor: try OwnerOnlyFile.create("the export", at: path), closeOnDealloc: true)
        }
        var status = stat()
        if fstat(STDOUT_FILENO, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_mode & 0o077 != 0 {
            throw .init(description: """
                standard output is a file others can read (mode \(String(status.st_mode & 0o777, radix: 8))); \
                write with --output FILE, which is made readable by you only, or set umask 077 first
                """)
        }
        return .standardOutput
    }
}

struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Rebuild a database from a document latchkey export wrote (all or nothing, in one transaction).",
        discussion: """
            The database must hold no accounts, OpenID Connect clients or admin keys, unless --merge: then rows that exist are \
            kept and the rest added. The document's server keys replace the database's; start the server with the key file of \
            the database the document came from.
            """)

    @Argument(help: "The document (latchkey export's output).")
    var file: String
    @OptionGroup var database: AdminCommand.Database
    @Flag(help: "Import into a database that already holds accounts: keep what is there, add what is not.")
    var merge = false

    func run() async throws {
        guard let data = FileManager.default.contents(atPath: file) else {
            Output.printError("latchkey import: \(file) cannot be read.")
            throw ExitCode(2)
        }
        let summary = try await database.withConfiguration(command: "import") { configuration in
            try await DatabaseExport.importDocument(data, configuration: configuration, merge: merge)
        }
        print("Imported \(summary.text.isEmpty ? "nothing" : summary.text).")
    }
}
