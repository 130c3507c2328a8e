import Foundation
import LatchkeyServer
import Testing

@testable import latchkey

/// `latchkey init` (issue 46, item 4): the file it writes for a public origin, what it refuses, that it never
/// overwrites, and the command it prints; `latchkey --version`; the start-up line's list of what is on.
struct InitCommandTests {
    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-init-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// The configuration `latchkey serve --config` makes of `text` (no flags, no variables).
    static func served(_ text: String) throws -> ServerConfiguration {
        try ServeArguments([]).resolve(environment: [:], file: ConfigurationFile(text: text, path: "latchkey.toml"))
    }

    @Test("a public https origin: its host is the RP ID, behind a proxy on 127.0.0.1, data in --data-dir, OpenID Connect off")
    func publicOrigin() throws {
        let file = try InitCommand.file(origin: "https://login.example.com/", dataDirectory: "/var/lib/latchkey", database: nil, rpId: nil,
                                        port: 8080, oidc: false, configurationPath: "/etc/latchkey/latchkey.toml")
        #expect(!file.secret)
        let configuration = try Self.served(file.text)
        #expect(configuration.rpId == "login.example.com")
        #expect(configuration.origins == ["https://login.example.com"])
        #expect(configuration.host == "127.0.0.1" && configuration.port == 8080)
        #expect(configuration.database == .sqlite(path: "/var/lib/latchkey/latchkey.sqlite"))
        #expect(configuration.keyFile == "/var/lib/latchkey/latchkey.key")
        #expect(configuration.trustForwardedFor)
        #expect(!configuration.oidc)
        #expect(file.text.hasPrefix("# Latchkey for https://login.example.com, written by `latchkey init`"))
        #expect(file.text.contains("# Start it with: latchkey serve --config /etc/latchkey/latchkey.toml\n"))
        // Every setting has a comment above its section.
        let lines = file.text.split(separator: "\n", omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() where line.contains(" = ") && !line.hasPrefix("#") && (index == 0 || lines[index - 1].isEmpty) {
            Issue.record("a section starts without its comment: \(line)")
        }
    }

    @Test("--oidc, --rp-id a parent domain, --port and a PostgreSQL database")
    func choices() throws {
        let file = try InitCommand.file(origin: "https://login.example.com", dataDirectory: "/srv/latchkey",
                                        database: "postgres://latchkey@db.example.com:5432/latchkey", rpId: "example.com", port: 9000,
                                        oidc: true, configurationPath: "latchkey.toml")
        let configuration = try Self.served(file.text)
        #expect(configuration.oidc && configuration.rpId == "example.com" && configuration.port == 9000)
        #expect(configuration.database == .postgres(url: "postgres://latchkey@db.example.com:5432/latchkey"))
        #expect(configuration.keyFile == "/srv/latchkey/latchkey.key")
        #expect(file.text.contains("Every instance on this PostgreSQL database needs the same key file."))
        // A password makes the file a secret: written for its owner only, as serve requires.
        let secret = try InitCommand.file(origin: "https://login.example.com", dataDirectory: "/srv", database: "postgres://latchkey:pw@db/latchkey",
                                          rpId: nil, port: 8080, oidc: false, configurationPath: "latchkey.toml")
        #expect(secret.secret)
    }

    @Test("refused: http on a public host, no scheme, a path, an RP ID the origin is not under")
    func refusals() {
        for (origin, rpId) in [("http://login.example.com", nil), ("login.example.com", nil), ("https://login.example.com/app", nil),
                               ("https://login.example.com", "other.example")] as [(String, String?)] {
            #expect(throws: ServerConfiguration.Invalid.self, "\(origin) \(rpId ?? "")") {
                _ = try InitCommand.file(origin: origin, dataDirectory: "/tmp", database: nil, rpId: rpId, port: 8080, oidc: false,
                                         configurationPath: "latchkey.toml")
            }
        }
        // localhost over http is what browsers allow: no proxy then, so X-Forwarded-For is not trusted.
        #expect((try? Self.served(InitCommand.file(origin: "http://localhost:8080", dataDirectory: "/tmp", database: nil, rpId: nil, port: 8080,
                                                   oidc: false, configurationPath: "l.toml").text))?.trustForwardedFor == false)
    }

    @Test("the command writes the file, prints the next command, and refuses to overwrite it")
    func command() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("latchkey.toml").path
        let first = try LatchkeyBinary.run(["init", "--origin", "https://login.example.com", "--output", path, "--data-dir", directory.path])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(first.stdout.contains("latchkey serve --config \(path)\n"), "\(first.stdout)")
        let written = try String(contentsOfFile: path, encoding: .utf8)
        let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
        #expect(mode == 0o644)
        // serve reads it as it is.
        let check = try Self.served(written)
        #expect(check.rpId == "login.example.com")

        let second = try LatchkeyBinary.run(["init", "--origin", "https://other.example.com", "--output", path])
        #expect(second.status == 2)
        #expect(second.stderr.contains("already exists"), "\(second.stderr)")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == written)
    }

    @Test("latchkey --version names the VERSION file's version, and says when no commit was recorded")
    func version() throws {
        let expected = try String(contentsOf: ConfigurationFileTests.repository.appendingPathComponent("VERSION"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let run = try LatchkeyBinary.run(["--version"])
        #expect(run.status == 0)
        #expect(run.stdout.hasPrefix("latchkey \(expected) ("), "\(run.stdout)")
        #expect(BuildInfo.version == expected)
        #expect(run.stdout.trimmingCharacters(in: .newlines) == BuildInfo.description)
        if BuildInfo.commit == nil { #expect(run.stdout.contains("development build, commit not recorded")) }
    }

    @Test("the start-up line says what is on")
    func switchedOn() throws {
        var configuration = ServerConfiguration()
        #expect(ServeCommand.switchedOn(configuration) == ["none"])
        configuration.oidc = true
        configuration.accessTokens = true
        configuration.compatibility = [.hanko]
        #expect(ServeCommand.switchedOn(configuration) == ["oidc", "access-tokens", "compat-hanko"])
    }
}
