import ArgumentParser
import Foundation
import LatchkeyServer

/// `latchkey init --origin https://login.example.com`: an operator's first file. It writes a commented
/// `latchkey.toml` with the few settings a public server needs (where it listens, the RP ID derived from the
/// origin, the database and key file, OpenID Connect on or off), checks that `latchkey serve` would accept
/// it, never overwrites a file, and prints the command that starts the server. Everything else keeps its
/// default: latchkey.example.toml lists every setting.
struct InitCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Write a commented latchkey.toml for a public origin, then say how to start the server.",
        discussion: """
            The RP ID is the origin's host (--rp-id a parent domain shares the passkeys with its other subdomains). \
            The database and the key file go in --data-dir (default: the current directory), made at first start. \
            An existing file is never overwritten.
            """)

    @Option(help: "The public origin people open, as https://login.example.com (http only for localhost).")
    var origin: String
    @Option(name: .shortAndLong, help: "The file to write; it must not exist yet.")
    var output: String = "latchkey.toml"
    @Option(help: "The directory of the SQLite database and the key file (default: the current directory).")
    var dataDir: String?
    @Option(help: "sqlite:PATH or postgres://user@host:port/database (default: sqlite: in --data-dir).")
    var database: String?
    @Option(help: "The relying party ID: the origin's host (default) or a parent domain of it.")
    var rpId: String?
    @Option(help: "The port it listens on, on 127.0.0.1, behind the proxy that serves the origin.")
    var port: Int = 8080
    @Flag(inversion: .prefixedNo, help: "Be an OpenID Connect provider for other apps (off by default).")
    var oidc = false

    func run() throws {
        let file: (text: String, secret: Bool)
        do throws(ServerConfiguration.Invalid) {
            file = try Self.file(
                origin: origin, dataDirectory: dataDir ?? FileManager.default.currentDirectoryPath, database: database, rpId: rpId, port: port,
                oidc: oidc, configurationPath: output)
        } catch {
            Output.printError("latchkey init: \(ServeCommand.sentence(error.description))")
            throw ExitCode(2)
        }
        // O_EXCL: a file that exists, or appears meanwhile, is left as it is.
        let descriptor = open(output, O_WRONLY | O_CREAT | O_EXCL, file.secret ? 0o600 : 0o644)
        guard descriptor >= 0 else {
            let reason = errno == EEXIST
                ? "\(output) already exists and is left as it is; move it away or give --output another path"
                : "cannot create \(output): \(String(cString: strerror(errno)))"
            Output.printError("latchkey init: \(ServeCommand.sentence(reason))")
            throw ExitCode(2)
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        try handle.write(contentsOf: Data(file.text.utf8))
        try handle.close()
        Output.printLine("Wrote \(output) for \(Self.normalized(origin)).")
        Output.printLine("Start the server with:")
        Output.printLine("  latchkey serve --config \(Self.shellQuoted(output))")
    }

    /// The file for these answers, checked as `latchkey serve --config` would check it; `secret` when it
    /// holds a password (then only its owner may read it).
    static func file(origin: String, dataDirectory: String, database: String?, rpId: String?, port: Int, oidc: Bool,
                     configurationPath: String) throws(ServerConfiguration.Invalid) -> (text: String, secret: Bool) {
        let origin = normalized(origin)
        guard let components = URLComponents(string: origin), let scheme = components.scheme, let host = components.host, !host.isEmpty,
              scheme == "https" || scheme == "http"
        else { throw .init(description: "the origin must look like https://login.example.com, not \(origin)") }
        let local = host == "localhost" || host.hasSuffix(".localhost") || host == "127.0.0.1"
        guard scheme == "https" || local else {
            throw .init(description: "browsers create passkeys on https origins only (http only for localhost): give https://\(host)")
        }
        let directory = URL(fileURLWithPath: dataDirectory).standardizedFileURL.path
        let databaseText = database ?? "sqlite:" + URL(fileURLWithPath: directory).appendingPathComponent("latchkey.sqlite").path
        let location = try DatabaseLocation(parsing: databaseText)
        let secret = URLComponents(string: databaseText)?.password != nil
        let keyFile = URL(fileURLWithPath: directory).appendingPathComponent("latchkey.key").path
        let text = InitTemplate(
            origin: origin, rpId: rpId ?? host.lowercased(), port: port, database: databaseText, isPostgres: location.isPostgres,
            keyFile: keyFile, oidc: oidc, behindProxy: !local, configurationPath: configurationPath
        ).text
        // What serve would make of it (the flags and variables of this shell left out).
        let checked = try ConfigurationFile(text: text, path: configurationPath, readableByOthers: !secret)
        try ServeArguments([]).resolve(environment: [:], file: checked).validate()
        return (text, secret)
    }

    /// The origin without a trailing slash, as browsers send it.
    static func normalized(_ origin: String) -> String {
        origin.hasSuffix("/") ? String(origin.dropLast()) : origin
    }

    static func shellQuoted(_ path: String) -> String {
        path.allSatisfy { $0.isLetter || $0.isNumber || "/._-+".contains($0) } ? path : "'" + path.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// The text `latchkey init` writes: sections of comments and settings, in the order an operator reads them.
/// A new setting for first start is one more `Line` in its section (or one more section).
struct InitTemplate {
    var origin: String
    var rpId: String
    var port: Int
    var database: String
    var isPostgres: Bool
    var keyFile: String
    var oidc: Bool
    var behindProxy: Bool
    var configurationPath: String

    /// A line of the file: a setting (`key = value`, its TOML value already written), or a comment.
    enum Line {
        case setting(String, String)
        case comment(String)
    }

    struct Section {
        var comments: [String]
        var lines: [Line]
    }

    var sections: [Section] {
        [
            Section(comments: behindProxy ? [
                "Where it listens: on this machine only, behind the reverse proxy that serves \(origin) over TLS",
                "(docs/operating.md shows nginx's); clients are counted by the address the proxy sets in X-Forwarded-For.",
            ] : [
                "Where it listens: \(origin) is this machine, and nothing else reaches this address.",
            ], lines: [
                .setting("host", quoted("127.0.0.1")),
                .setting("port", "\(port)"),
                behindProxy ? .setting("trust-forwarded-for", "true") : .comment("trust-forwarded-for = true   # behind a reverse proxy"),
            ]),
            Section(comments: [
                "The relying party. Passkeys belong to the RP ID, the origin's host: changing it later leaves every",
                "passkey behind. A parent domain (example.com for login.example.com) shares them with its other subdomains.",
            ], lines: [
                .setting("rp-id", quoted(rpId)),
                .setting("rp-name", quoted("Latchkey")),
                .setting("origin", "[\(quoted(origin))]"),
            ]),
            Section(comments: [
                "The database and the key file that wraps the keys kept in it, both made at first start (chmod 600).",
                "Back both up: a copy of the database is of no use without the key (latchkey backup copies the database).",
            ] + (isPostgres ? ["Every instance on this PostgreSQL database needs the same key file."] : []), lines: [
                .setting("database", quoted(database)),
                .setting("key-file", quoted(keyFile)),
            ]),
            Section(comments: [
                "OpenID Connect: other apps sign people in through Latchkey (clients: latchkey admin clients add).",
            ], lines: [
                .setting("oidc", oidc ? "true" : "false"),
            ]),
        ]
    }

    var text: String {
        var lines = [
            "# Latchkey for \(origin), written by `latchkey init` (\(BuildInfo.version)).",
            "# Start it with: latchkey serve --config \(configurationPath)",
            "# Every other setting keeps its default; latchkey.example.toml lists them all (docs/configuration.md).",
            "# A flag or a LATCHKEY_* variable wins over this file.",
        ]
        for section in sections {
            lines.append("")
            lines += section.comments.map { "# " + $0 }
            for line in section.lines {
                switch line {
                case .setting(let key, let value): lines.append("\(key) = \(value)")
                case .comment(let text): lines.append("# " + text)
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func quoted(_ text: String) -> String { TOMLString.quoted(text) }
}
