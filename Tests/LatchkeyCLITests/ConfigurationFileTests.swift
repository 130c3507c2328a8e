import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import LatchkeyServer
import Testing
import WebAuthn
@testable import latchkey

/// `latchkey serve --config FILE`: every setting is read, the order is flag > environment > file >
/// default, mistakes are one sentence that names the setting and the file, secrets stay out of sentences,
/// and the manual's sample (docs/configuration.md) is the example file and parses.
@Suite("latchkey serve --config", .serialized)
struct ConfigurationFileTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let secret = "0123456789abcdef0123456789abcdef-secret"

    /// A file that sets every setting (but introspection-secret-file, which excludes introspection-secret)
    /// to something other than its default.
    static let complete = """
        host = "0.0.0.0"
        port = 9123
        rp-id = "example.com"
        rp-name = "Example"
        origin = ["https://login.example.com", "https://example.com"]
        database = "postgres://latchkey@db.internal:5432/latchkey"
        key-file = "/etc/latchkey/latchkey.key"
        max-passkeys-per-account = 20
        add-passkey-window = 120
        head-timeout = 5
        session-ttl = 3600
        challenge-ttl = 120
        user-verification = "preferred"
        attestation = "direct"
        sign-count = "warn"
        apple-app-id = ["ABCDE12345.com.example.app", "ABCDE12345.com.example.other"]
        android-app = ["com.example.app:\(String(repeating: "AB:", count: 31))CD"]
        threads = 2
        rate-limit = 100
        rate-limit-scope = "instance"
        housekeeping-interval = 2.5
        access-tokens = true
        access-token-ttl = 600
        signing-key-lifetime = 7200
        token-issuer = "https://login.example.com"
        token-audience = "https://api.example.com"
        introspection-secret = "\(secret)"
        trust-forwarded-for = true
        admin-listen = "127.0.0.1:9090"
        webhook-url = ["https://hooks.example.com/latchkey", "https://audit.example.net/in"]
        webhook-secret = "\(secret)"
        webhook-max-attempts = 5
        webhook-retry-delay = 2
        database-pool = 4
        database-timeout = 1.5
        idle-timeout = 10
        max-connections = 100
        max-connections-per-client = 10
        compat = ["passkeysdemo", "hanko"]
        compat-passkeysdemo-path = "/passkeys/index.php"
        cookie-domain = "example.com"
        forward-auth-rule = ["grafana.example.com signed-in", "*.example.com/admin groups=admins|ops max-age=600", "* deny"]
        forward-auth-header-prefix = "X-Auth-Request-"
        forward-auth-cache-ttl = 2.5
        """

    func resolve(_ arguments: [String] = [], environment: [String: String] = [:], file text: String) throws -> ServerConfiguration {
        let file = try ConfigurationFile(text: text, path: "test.toml")
        return try ServeCommand.parse(arguments).resolve(environment: environment, file: file)
    }

    /// The sentence a file's mistake gives.
    func refusal(_ text: String, path: String = "latchkey.toml") -> String {
        do {
            _ = try ConfigurationFile(text: text, path: path)
            return "(accepted)"
        } catch {
            return "\(error)"
        }
    }

    func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    func write(_ text: String, to url: URL, mode: Int) throws {
        try Data(text.utf8).write(to: url)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: url.path)
    }

    // MARK: - Every setting

    /// The settings `complete` names.
    static var completeKeys: Set<String> {
        Set(complete.split(separator: "\n").compactMap { $0.split(separator: " ").first.map(String.init) })
    }

    /// A file that sets each setting (ServeSettingsTests.everySettingIsReadFromEachSource checks that
    /// one it does not name yet is read all the same).
    @Test("a complete file sets every setting")
    func everySettingIsRead() throws {
        #expect(Self.completeKeys.isSubset(of: ServeSettings.fileKeys), "the test file names only settings")

        let c = try resolve(file: Self.complete)
        #expect(c.host == "0.0.0.0")
        #expect(c.port == 9123)
        #expect(c.rpId == "example.com")
        #expect(c.rpName == "Example")
        #expect(c.keyFile == "/etc/latchkey/latchkey.key")
        #expect(c.androidApps.map(\.packageName) == ["com.example.app"])
        #expect(c.maxPasskeysPerAccount == 20)
        #expect(c.addPasskeyWindow == 120)
        #expect(c.headTimeout == 5)
        #expect(c.origins == ["https://login.example.com", "https://example.com"])
        #expect(c.database == .postgres(url: "postgres://latchkey@db.internal:5432/latchkey"))
        #expect(c.sessionTTL == 3600)
        #expect(c.ceremonyTTL == 120)
        #expect(c.userVerification == .preferred)
        #expect(c.attestation == .direct)
        #expect(c.signCountPolicy == .report)
        #expect(c.appleAppIds == ["ABCDE12345.com.example.app", "ABCDE12345.com.example.other"])
        #expect(c.threads == 2)
        #expect(c.rateLimit == 100)
        #expect(c.rateLimitScope == .instance)
        #expect(c.housekeepingInterval == 2.5)
        #expect(c.accessTokens)
        #expect(c.accessTokenTTL == 600)
        #expect(c.signingKeyLifetime == 7200)
        #expect(c.tokenIssuer == "https://login.example.com")
        #expect(c.tokenAudience == "https://api.example.com")
        #expect(c.introspectionSecret == Self.secret)
        #expect(c.trustForwardedFor)
        #expect(c.databasePoolSize == 4)
        #expect(c.databaseTimeout == 1.5)
        #expect(c.idleTimeout == 10)
        #expect(c.maxConnections == 100)
        #expect(c.maxConnectionsPerClient == 10)
        #expect(c.cookieDomain == "example.com")
        #expect(c.forwardAuthRules.map(\.description) == ["grafana.example.com signed-in", "*.example.com/admin groups=admins|ops max-age=600", "* deny"])
        #expect(c.forwardAuthHeaderPrefix == "X-Auth-Request-")
        #expect(c.forwardAuthCacheTTL == 2.5)
        #expect(c.compatibility == [.passKeysDemo, .hanko])
        #expect(c.passKeysDemoPath == "/passkeys/index.php")
        try c.validate()
    }

    @Test("every flag of latchkey serve has its setting in the file, under the flag's name")
    func everyFlagHasASetting() throws {
        let help = ServeCommand.helpMessage(columns: 1000)
        let flags = Set(help.matches(of: /--([a-z][a-z-]*)/).map { String($0.output.1) }).subtracting(["help", "config"])
        let fileOnly: Set<String> = ["introspection-secret", "webhook-secret"]  // a secret is never a flag (it would be in `ps`)
        #expect(flags == Set(ServeSettings.fileKeys).subtracting(fileOnly), "serve --help: \(help)")
    }

    @Test("the secret may come from a file named in the configuration file")
    func introspectionSecretFile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let secretFile = directory.appendingPathComponent("secret")
        try write(Self.secret + "\n", to: secretFile, mode: 0o600)
        let c = try resolve(file: "introspection-secret-file = \"\(secretFile.path)\"")
        #expect(c.introspectionSecret == Self.secret)
        #expect(refusal("introspection-secret-file = \"\(directory.path)/none\"").contains("cannot be read"))
        #expect(refusal("introspection-secret = \"\(Self.secret)\"\nintrospection-secret-file = \"x\"").contains("keep one"))
        // Fourth review, S4-10: a secret's file others can read is refused, as the key file is.
        for key in ["introspection-secret-file", "webhook-secret-file"] {
            try write(Self.secret + "\n", to: secretFile, mode: 0o644)
            let words = key.dropLast("-file".count).replacingOccurrences(of: "-", with: " ")
            #expect(refusal("\(key) = \"\(secretFile.path)\"") == "the \(words) file \(secretFile.path) is readable by others (mode 644); chmod 600 it")
            try write(Self.secret + "\n", to: secretFile, mode: 0o600)
            #expect(refusal("\(key) = \"\(secretFile.path)\"") == "(accepted)")
        }
    }

    // MARK: - Precedence

    @Test("flag > environment > file > default")
    func precedence() throws {
        let file = "port = 9001\nrp-name = \"File\"\norigin = [\"http://localhost:9001\"]\nrate-limit = 5\ndatabase-timeout = 2"
        let fileAlone = try resolve(file: file)
        #expect(fileAlone.port == 9001)
        #expect(fileAlone.rpName == "File")
        #expect(fileAlone.origins == ["http://localhost:9001"])
        #expect(fileAlone.rateLimit == 5)
        #expect(fileAlone.databaseTimeout == 2)
        #expect(fileAlone.threads == ServerConfiguration().threads, "what the file does not set keeps its default")

        let environment = ["LATCHKEY_PORT": "9002", "LATCHKEY_RP_NAME": "Environment", "LATCHKEY_ORIGIN": "http://localhost:9002"]
        let overFile = try resolve(environment: environment, file: file)
        #expect(overFile.port == 9002)
        #expect(overFile.rpName == "Environment")
        #expect(overFile.origins == ["http://localhost:9002"])
        #expect(overFile.rateLimit == 5, "the file still sets what the environment does not")

        let flags = try resolve(["--port", "9003", "--origin", "http://localhost:9003", "--rate-limit", "7"], environment: environment, file: file)
        #expect(flags.port == 9003)
        #expect(flags.origins == ["http://localhost:9003"])
        #expect(flags.rateLimit == 7)
        #expect(flags.rpName == "Environment")
        #expect(flags.databaseTimeout == 2)

        let emptyVariable = try resolve(environment: ["LATCHKEY_PORT": ""], file: file)
        #expect(emptyVariable.port == 9001, "an empty variable is unset: it does not hide the file's value")

        let booleans = try resolve(environment: ["LATCHKEY_TRUST_FORWARDED_FOR": "false"], file: "trust-forwarded-for = true")
        #expect(!booleans.trustForwardedFor, "false in the environment wins over true in the file")
    }

    @Test("--config and LATCHKEY_CONFIG name the file; --config wins")
    func whichFile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = directory.appendingPathComponent("first.toml"), second = directory.appendingPathComponent("second.toml")
        try write("port = 9101\norigin = \"http://localhost:9101\"", to: first, mode: 0o644)
        try write("port = 9102\norigin = \"http://localhost:9102\"", to: second, mode: 0o644)
        #expect(try ServeCommand.parse(["--config", first.path]).resolveWithConfigurationFile(environment: [:]).port == 9101)
        #expect(try ServeCommand.parse([]).resolveWithConfigurationFile(environment: ["LATCHKEY_CONFIG": second.path]).port == 9102)
        #expect(try ServeCommand.parse(["--config", first.path]).resolveWithConfigurationFile(environment: ["LATCHKEY_CONFIG": second.path]).port == 9101)
        #expect(try ServeCommand.parse([]).resolveWithConfigurationFile(environment: ["LATCHKEY_CONFIG": ""]).port == 8080)
    }

    // MARK: - Mistakes

    @Test("an unknown setting is refused with its name, the file's, and the nearest known name")
    func unknownSetting() {
        let sentence = refusal("port = 8080\nprot = 9000", path: "/etc/latchkey.toml")
        #expect(sentence.contains("unknown setting, prot"), "\(sentence)")
        #expect(sentence.contains("/etc/latchkey.toml"), "\(sentence)")
        #expect(sentence.contains("did you mean port?"), "\(sentence)")
        #expect(refusal("config = \"other.toml\"").contains("unknown setting, config"))
        #expect(refusal("[server]\nport = 8080").contains("unknown setting, server"))
    }

    @Test("a value of the wrong type is refused with the setting and the type it needs", arguments: [
        ("port = \"8080\"", "port in latchkey.toml must be a whole number, not a string (write it without quotes)"),
        ("session-ttl = 1.5", "session-ttl in latchkey.toml must be a whole number"),
        ("database-timeout = \"5\"", "database-timeout in latchkey.toml must be a number of seconds"),
        ("trust-forwarded-for = \"yes\"", "trust-forwarded-for in latchkey.toml must be true or false, not a string"),
        ("origin = [\"https://a.example\", 3]", "origin in latchkey.toml must be an array of strings"),
        ("host = 127", "host in latchkey.toml must be a string"),
        ("[database]\nurl = \"sqlite:x\"", "database in latchkey.toml must be a string (database = \"sqlite:latchkey.sqlite\"), not a table"),
        ("user-verification = \"sometimes\"", "user-verification in latchkey.toml must be \"required\" or \"preferred\", not \"sometimes\""),
        ("database = \"mysql://u:hunter2@db/x\"", "database in latchkey.toml must be sqlite:PATH or postgres://"),
        ("origin = [\"https://a.example,https://b.example\"]", "has an item with a comma"),
    ])
    func wrongType(text: String, fragment: String) {
        let sentence = refusal(text)
        #expect(sentence.contains(fragment), "\(sentence)")
        #expect(!sentence.contains("hunter2"), "a database password is never repeated")
    }

    @Test("a value out of range gets the same sentence as from a flag")
    func outOfRange() throws {
        let c = try resolve(file: "port = 70000")
        #expect(throws: ServerConfiguration.Invalid.self) { try c.validate() }
    }

    @Test("a TOML syntax error gives the line and column, but never a secret's text")
    func syntaxError() {
        let sentence = refusal("port = 8080\nhost = \n")
        #expect(sentence.contains("is not valid TOML at line 2"), "\(sentence)")
        let secretLine = refusal("port = 8080\nintrospection-secret = hunter2hunter2hunter2hunter2hunter2\n")
        #expect(secretLine.contains("line 2"), "\(secretLine)")
        #expect(!secretLine.contains("hunter2"), "\(secretLine)")
        #expect(refusal("port = 1\nport = 2").contains("line 2"))
    }

    @Test("a missing file, a directory and a file that is not UTF-8 are refused")
    func unreadable() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        func sentence(_ path: String) -> String {
            do { _ = try ConfigurationFile(path: path); return "(accepted)" } catch { return "\(error)" }
        }
        #expect(sentence(directory.appendingPathComponent("none.toml").path).contains("does not exist"))
        #expect(sentence(directory.path).contains("cannot be read"))
        let binary = directory.appendingPathComponent("binary.toml")
        try Data([0x70, 0x3D, 0xFF, 0xFE]).write(to: binary)
        #expect(sentence(binary.path).contains("not UTF-8"))
    }

    @Test("a file holding a secret must be readable by its owner only; the secret is never in a sentence")
    func secretsNeedAPrivateFile() throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("latchkey.toml")
        for text in [
            "introspection-secret = \"\(Self.secret)\"", "database = \"postgres://latchkey:\(Self.secret)@db/latchkey\"",
            "smtp-url = \"smtps://mailer:\(Self.secret)@mail.example.com\"",
        ] {
            try write(text, to: file, mode: 0o644)
            do {
                _ = try ConfigurationFile(path: file.path)
                Issue.record("a secret in a world-readable file was accepted: \(text)")
            } catch {
                let sentence = "\(error)"
                #expect(sentence.contains("chmod 600"), "\(sentence)")
                #expect(sentence.contains("mode 644"), "\(sentence)")
                #expect(!sentence.contains(Self.secret))
            }
            try write(text, to: file, mode: 0o640)
            #expect(throws: ServerConfiguration.Invalid.self) { try ConfigurationFile(path: file.path) }
            try write(text, to: file, mode: 0o600)
            _ = try ConfigurationFile(path: file.path)
        }
        try write("database = \"postgres://latchkey@db/latchkey\"", to: file, mode: 0o644)
        _ = try ConfigurationFile(path: file.path)  // no password, nothing to hide
        try write("smtp-url = \"smtp://mailer@127.0.0.1:25\"", to: file, mode: 0o644)
        _ = try ConfigurationFile(path: file.path)
    }

    // MARK: - The manual's sample

    @Test("docs/configuration.md's sample is latchkey.example.toml, names every setting, and gives the defaults")
    func readmeSample() throws {
        let example = try String(contentsOf: Self.repository.appendingPathComponent("latchkey.example.toml"), encoding: .utf8)
        let manual = try String(contentsOf: Self.repository.appendingPathComponent("docs/configuration.md"), encoding: .utf8)
        #expect(manual.contains("```toml\n" + example + "```\n"), "docs/configuration.md shows latchkey.example.toml verbatim")
        for key in ServeSettings.fileKeys {
            let named = example.split(separator: "\n").contains { line in
                line.hasPrefix("\(key) =") || line.hasPrefix("# \(key) =")
            }
            #expect(named, "the sample names \(key)")
        }
        var fromSample = try resolve(file: example)
        // Only the file's name: a file always says which clients it manages (`[[oidc-client]]`, none here).
        #expect(fromSample.declaredOIDCClients.isEmpty && fromSample.declaredOIDCClientsFile != nil)
        fromSample.declaredOIDCClientsFile = nil
        let defaults = try ServeCommand.parse([]).resolve(environment: [:])
        #expect("\(fromSample)" == "\(defaults)", "the sample's values are the defaults")
    }

    // MARK: - The real command

    @Test("latchkey serve --config listens on the file's port; a mistake in the file exits 2 with one sentence")
    func serveWithAFile() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = ServeCommandTests.freePort()
        let file = directory.appendingPathComponent("latchkey.toml")
        try write("""
            port = \(port)
            origin = ["http://localhost:\(port)"]
            database = "sqlite:\(directory.path)/file.sqlite"
            rp-name = "From the file"
            """, to: file, mode: 0o644)

        let server = Process()
        server.executableURL = LatchkeyBinary.url
        server.arguments = ["serve", "--config", file.path]
        server.currentDirectoryURL = directory
        let log = Pipe()
        server.standardOutput = Pipe()
        server.standardError = log  // the log goes to standard error
        try server.run()
        defer { if server.isRunning { server.terminate() } }
        var health: String?
        for _ in 0..<100 where health == nil {
            if let url = URL(string: "http://127.0.0.1:\(port)/healthz"), let (data, _) = try? await URLSession.shared.data(from: url) {
                health = String(decoding: data, as: UTF8.self)
            }
            if health == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(health?.contains("ok") == true, "the server listens on the port the file gives")
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("file.sqlite").path), "and uses its database")
        kill(server.processIdentifier, SIGTERM)
        server.waitUntilExit()
        let output = String(decoding: log.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(output.contains(file.path), "the start-up line names the file: \(output)")

        try write("port = \(port)\nprot = 1", to: file, mode: 0o644)
        let bad = try LatchkeyBinary.run(["serve"], environment: ["LATCHKEY_CONFIG": file.path])
        #expect(bad.status == 2, "\(bad.stderr)")
        #expect(bad.stderr.contains("unknown setting, prot (did you mean port?)"), "\(bad.stderr)")
        #expect(bad.stderr.split(separator: "\n").count == 1, "one sentence: \(bad.stderr)")

        let missing = try LatchkeyBinary.run(["serve", "--config", directory.appendingPathComponent("none.toml").path])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("does not exist"), "\(missing.stderr)")
    }
}
