import Foundation
import LatchkeyServer
import Testing
@testable import latchkey

/// `ServeSettings.all`: each setting's one declaration gives its flag, variable, file key, help line and
/// example-file line, and its value reads the same from each of them.
@Suite("latchkey serve's settings table")
struct ServeSettingsTests {
    static let example: String = {
        let url = ConfigurationFileTests.repository.appendingPathComponent("latchkey.example.toml")
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }()

    /// Whether `latchkey.example.toml` has a line that begins `prefix` (a value, then the end of the
    /// line or a comment; or, commented out, anything).
    static func exampleHasLine(_ prefix: String) -> Bool {
        example.split(separator: "\n").contains { line in
            guard line.hasPrefix(prefix) else { return false }
            let rest = line.dropFirst(prefix.count)
            return prefix.hasPrefix("#") || rest.isEmpty || rest.hasPrefix(" ")
        }
    }

    func refusal(_ arguments: [String], environment: [String: String] = [:]) -> String {
        do {
            _ = try ServeCommand.parse(arguments).resolve(environment: environment)
            return "(accepted)"
        } catch {
            return "\(error)"
        }
    }

    // MARK: - One declaration

    @Test("a setting's declaration yields its flag, variable, file key, help line and example-file line")
    func oneDeclaration() throws {
        let setting = try #require(ServeSettings.all.first { $0.name == "head-timeout" })
        #expect(setting.flag == "--head-timeout")
        #expect(setting.variable == "LATCHKEY_HEAD_TIMEOUT")
        #expect(setting.fileKeys == ["head-timeout"])
        #expect(setting.flagLabel == "--head-timeout <seconds>")
        #expect(setting.helpSentence == "Seconds a request head may take from its first byte to its end; 0: none; never more than the idle time-out (default: 10).")
        let help = ServeCommand.helpMessage(columns: 1000)
        #expect(help.contains("""
              --head-timeout <seconds>
                                      Seconds a request head may take from its first byte
                                      to its end; 0: none; never more than the idle
                                      time-out (default: 10).
            """), "\(help)")
        // The variable list is wrapped; where its lines break depends on the settings before this one.
        let words = help.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains(" LATCHKEY_HEAD_TIMEOUT (seconds),"), "\(help)")
        #expect(setting.exampleLines == ["head-timeout = 10"])
        #expect(Self.exampleHasLine("head-timeout = 10"))

        #expect(try ServeCommand.parse(["--head-timeout", "5"]).resolve(environment: [:]).headTimeout == 5)
        #expect(try ServeCommand.parse(["--head-timeout=5"]).resolve(environment: [:]).headTimeout == 5)
        #expect(try ServeCommand.parse([]).resolve(environment: ["LATCHKEY_HEAD_TIMEOUT": "6"]).headTimeout == 6)
        let file = try ConfigurationFile(text: "head-timeout = 7", path: "t.toml")
        #expect(try ServeCommand.parse([]).resolve(environment: [:], file: file).headTimeout == 7)
        #expect(try ServeCommand.parse([]).resolve(environment: [:]).headTimeout == ServerConfiguration().headTimeout)
    }

    @Test("a secret's declaration: its flag names a file, its variable and file key hold it, and the example shows both keys")
    func secretDeclaration() throws {
        let setting = try #require(ServeSettings.all.first { $0.name == "introspection-secret" })
        #expect(setting.flag == "--introspection-secret-file")
        #expect(setting.variable == "LATCHKEY_INTROSPECTION_SECRET")
        #expect(setting.fileKeys == ["introspection-secret", "introspection-secret-file"])
        #expect(setting.exampleLines == ["# introspection-secret = ", "# introspection-secret-file = "])
        let help = ServeCommand.helpMessage(columns: 1000)
        #expect(help.contains("  --introspection-secret-file <path>\n"), "\(help)")
        #expect(help.contains("LATCHKEY_INTROSPECTION_SECRET (the secret itself)"), "\(help)")
        #expect(refusal(["--introspection-secret", "x"]).contains("give --introspection-secret-file"))
    }

    @Test("--tls-cert: the default origin is https://localhost:PORT, and the help says so")
    func tlsDefaultOrigin() throws {
        let plain = try ServeCommand.parse(["--port", "8443"]).resolve(environment: [:])
        #expect(plain.origins == ["http://localhost:8443"])
        let tls = try ServeCommand.parse(["--port", "8443", "--tls-cert", "fullchain.pem", "--tls-key", "privkey.pem"]).resolve(environment: [:])
        #expect(tls.origins == ["https://localhost:8443"])
        #expect(tls.tlsCertificateFile == "fullchain.pem" && tls.tlsKeyFile == "privkey.pem")
        let given = try ServeCommand.parse(["--tls-cert", "a", "--tls-key", "b", "--origin", "https://login.example.com"]).resolve(environment: [:])
        #expect(given.origins == ["https://login.example.com"])
        let file = try ConfigurationFile(text: "tls-cert = \"/etc/latchkey/tls/fullchain.pem\"\ntls-key = \"/etc/latchkey/tls/privkey.pem\"", path: "t.toml")
        let fromFile = try ServeCommand.parse(["--port", "443"]).resolve(environment: [:], file: file)
        #expect(fromFile.tlsCertificateFile == "/etc/latchkey/tls/fullchain.pem" && fromFile.tlsKeyFile == "/etc/latchkey/tls/privkey.pem")
        #expect(fromFile.origins == ["https://localhost:443"])
        #expect(Self.exampleHasLine("# tls-cert = ") && Self.exampleHasLine("# tls-key = "))
    }

    @Test("a list's declaration: a repeatable flag, a comma-separated variable, an array in the file")
    func listDeclaration() throws {
        let setting = try #require(ServeSettings.all.first { $0.name == "apple-app-id" })
        #expect(setting.exampleLines == ["apple-app-id = []"])
        #expect(setting.helpSentence.contains("(repeatable; default: none)"))
        // The ENVIRONMENT paragraph wraps at the help's width whatever the columns: read it unwrapped.
        #expect(ServeCommand.helpMessage(columns: 1000).replacingOccurrences(of: "\n", with: " ").contains("LATCHKEY_APPLE_APP_ID (comma-separated)"))
        let ids = ["ABCDE12345.com.example.app", "ABCDE12345.com.example.other"]
        #expect(try ServeCommand.parse(["--apple-app-id", ids[0], "--apple-app-id", ids[1]]).resolve(environment: [:]).appleAppIds == ids)
        #expect(try ServeCommand.parse([]).resolve(environment: ["LATCHKEY_APPLE_APP_ID": " \(ids[0]) ,\(ids[1]),"]).appleAppIds == ids)
        #expect(try ServeCommand.parse([]).resolve(environment: ["LATCHKEY_APPLE_APP_ID": ","]).appleAppIds == [], "no items: as if unset")
    }

    // MARK: - Every declaration

    @Test("every setting has its line in serve --help, its variable in the help's list, and its line in latchkey.example.toml")
    func everySettingIsDocumented() {
        let help = ServeCommand.helpMessage(columns: 1000)
        for setting in ServeSettings.all {
            #expect(help.contains(ServeArguments.row(setting.flagLabel, setting.helpSentence)), "\(setting.name) in serve --help")
            #expect(help.replacingOccurrences(of: "\n", with: " ").contains(" \(setting.variableDescription),"), "\(setting.variable) in serve --help")
            for line in setting.exampleLines {
                #expect(Self.exampleHasLine(line), "latchkey.example.toml has no line \"\(line)…\" for \(setting.name)")
            }
        }
        #expect(help.contains("LATCHKEY_CONFIG (as --config)"))
        #expect(help.contains("LOG_LEVEL"))
        for line in ServeCommand.helpMessage(columns: 80).split(separator: "\n") {
            #expect(line.count < 80, "a help line fits 80 columns: \(line)")
        }
    }

    @Test("names, flags, variables and file keys are each declared once")
    func namesAreUnique() {
        let all = ServeSettings.all
        #expect(Set(all.map(\.name)).count == all.count)
        #expect(Set(all.map(\.flagName)).count == all.count)
        #expect(Set(all.map(\.variable)).count == all.count)
        #expect(Set(ServeSettings.fileKeys).count == ServeSettings.fileKeys.count)
        #expect(!all.contains { $0.flagName == "config" || $0.flagName == "help" })
        for setting in all {
            #expect(setting.name.wholeMatch(of: /[a-z][a-z0-9]*(-[a-z0-9]+)*/) != nil, "\(setting.name) is a flag's long name")
        }
    }

    /// A value for `setting` other than its default: the one ConfigurationFileTests.complete gives it,
    /// else one made from its kind.
    static func sample(for setting: ServeSetting) throws -> ServeSetting.Value {
        let line = ConfigurationFileTests.complete.split(separator: "\n").first { $0.hasPrefix("\(setting.name) = ") }
        if let line, let value = try ConfigurationFile(text: String(line), path: "sample.toml").values[setting.name] { return value }
        let current = setting.read(ServerConfiguration())
        switch setting.kind {
        case .text: return .text("sample-\(setting.name)")
        case .integer, .wholeSeconds: return .integer((current?.integer ?? 0) + 1)
        case .seconds: return .number((current?.number ?? 0) + 0.5)
        case .boolean: return .boolean(!(current?.boolean ?? false))
        case .list: return .list(["sample-1", "sample-2"])
        case .choice(let choices): return .text(try #require(choices.first { .text($0) != current }))
        case .choices(let choices): return .list([try #require(choices.last)])
        case .database: return .text("sqlite:sample.sqlite")
        case .secret: return .text(String(repeating: "sample-secret-", count: 3))
        }
    }

    /// The configuration as text to compare (a set's order is not the same from one set to another).
    static func text(_ configuration: ServerConfiguration) -> String {
        var configuration = configuration
        let compatibility = configuration.compatibility.map(\.rawValue).sorted()
        configuration.compatibility = []
        return "\(configuration), compatibility \(compatibility)"
    }

    @Test("every setting is read from its flag, its variable and the file alike, and changes the configuration")
    func everySettingIsReadFromEachSource() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-settings-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let defaults = Self.text(try ServeCommand.parse([]).resolve(environment: [:]))
        for setting in ServeSettings.all {
            let value = try Self.sample(for: setting)
            let file = try ConfigurationFile(text: "\(setting.name) = \(ServeSetting.tomlText(value))", path: "sample.toml")
            var resolved = try ServeCommand.parse([]).resolve(environment: [:], file: file)
            // Every file also names itself as the one that manages the clients it declares (none here).
            #expect(resolved.declaredOIDCClientsFile != nil && resolved.declaredOIDCClients.isEmpty)
            resolved.declaredOIDCClientsFile = nil
            let fromFile = Self.text(resolved)
            let fromVariable = Self.text(try ServeCommand.parse([]).resolve(environment: [setting.variable: setting.variableText(value)]))
            var arguments = setting.flagArguments(value)
            if setting.kind == .secret {
                let secretFile = directory.appendingPathComponent(setting.name)
                try Data((setting.variableText(value) + "\n").utf8).write(to: secretFile)
                try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secretFile.path)
                arguments = [setting.flag, secretFile.path]
            }
            #expect(fromFile != defaults, "\(setting.name) = \(ServeSetting.tomlText(value)) changes the configuration")
            #expect(fromVariable == fromFile, "\(setting.variable) reads as \(setting.name) in the file")
            if !arguments.isEmpty {
                let fromFlag = Self.text(try ServeCommand.parse(arguments).resolve(environment: [:]))
                #expect(fromFlag == fromFile, "\(arguments) reads as \(setting.name) in the file")
            }
        }
    }

    // MARK: - The command line

    @Test("flags: --NAME VALUE or --NAME=VALUE, lists repeated, the last of a single value, booleans alone")
    func flags() throws {
        let c = try ServeCommand.parse([
            "--port=9000", "--port", "9001", "--origin", "http://localhost:9001", "--origin=http://127.0.0.1:9001",
            "--trust-forwarded-for", "--compat", "Hanko,passkeysdemo", "--threads", "-1", "--rp-name=",
        ]).resolve(environment: [:])
        #expect(c.port == 9001)
        #expect(c.origins == ["http://localhost:9001", "http://127.0.0.1:9001"])
        #expect(c.trustForwardedFor)
        #expect(c.compatibility == [.hanko, .passKeysDemo])
        #expect(c.threads == -1)
        #expect(c.rpName == "")
        #expect(try ServeCommand.parse(["--config", "x.toml"]).configurationFilePath(environment: [:]) == "x.toml")
        #expect(try ServeCommand.parse(["--config=y.toml"]).configurationFilePath(environment: ["LATCHKEY_CONFIG": "z.toml"]) == "y.toml")
    }

    @Test("a flag's mistake is one sentence that names the flag", arguments: [
        (["--prot", "9000"], "--prot is not a flag of latchkey serve (did you mean --port?)"),
        (["--port", "abc"], "--port must be a whole number, not \"abc\""),
        (["--port"], "--port needs a value"),
        (["--rp-id", "--port", "1"], "--rp-id needs a value"),
        (["--session-ttl", "1.5"], "--session-ttl must be a whole number of seconds"),
        (["--database-timeout", "soon"], "--database-timeout must be a number of seconds"),
        (["--access-tokens=true"], "--access-tokens takes no value"),
        (["--attestation", "indirect"], "--attestation must be none or direct, not \"indirect\""),
        (["--compat", "hanko,other"], "--compat must be passkeysdemo or hanko, not \"other\""),
        (["serve"], "\"serve\" is not a flag"),
        (["--introspection-secret-file", "/nonexistent/secret"], "the introspection secret file /nonexistent/secret cannot be read"),
    ])
    func flagMistakes(arguments: [String], fragment: String) {
        let sentence = refusal(arguments)
        #expect(sentence.contains(fragment), "\(arguments): \(sentence)")
        #expect(!sentence.contains("\n"))
    }

    /// Fourth review, S4-10: a secret's file is refused as the key file is when others can read it, with
    /// the key file's own sentence; the owner's file is read.
    @Test("a secret file others can read is refused with the key file's sentence", arguments: ["--webhook-secret-file", "--introspection-secret-file"])
    func secretFileOthersCanRead(flag: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-secret-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("secret")
        try Data((String(repeating: "0123456789abcdef", count: 3) + "\n").utf8).write(to: file)
        let words = flag.dropFirst(2).dropLast("-file".count).replacingOccurrences(of: "-", with: " ")
        for mode in [0o644, 0o640, 0o604] {
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file.path)
            let sentence = refusal([flag, file.path])
            #expect(sentence == "the \(words) file \(file.path) is readable by others (mode \(String(mode, radix: 8))); chmod 600 it", "\(sentence)")
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        #expect(!refusal([flag, file.path]).contains("readable by others"))
    }

    @Test("a variable's mistake is one sentence that names the variable; an empty variable is unset", arguments: [
        ("LATCHKEY_PORT", "abc", "LATCHKEY_PORT must be a whole number, not \"abc\""),
        ("LATCHKEY_ACCESS_TOKENS", "yes", "LATCHKEY_ACCESS_TOKENS must be true or false, not \"yes\""),
        ("LATCHKEY_SIGN_COUNT", "ignore", "LATCHKEY_SIGN_COUNT must be reject or warn, not \"ignore\""),
        ("LATCHKEY_HOUSEKEEPING_INTERVAL", "often", "LATCHKEY_HOUSEKEEPING_INTERVAL must be a number of seconds"),
    ])
    func variableMistakes(name: String, value: String, fragment: String) throws {
        let sentence = refusal([], environment: [name: value])
        #expect(sentence.contains(fragment), "\(sentence)")
        #expect(try ServeCommand.parse([]).resolve(environment: [name: ""]).port == 8080)
    }

    @Test("booleans from variables: true, false, 1, 0 in any case")
    func booleanVariables() throws {
        for (text, on) in [("true", true), ("TRUE", true), ("1", true), ("false", false), ("False", false), ("0", false)] {
            #expect(try ServeCommand.parse([]).resolve(environment: ["LATCHKEY_ACCESS_TOKENS": text]).accessTokens == on, "\(text)")
        }
        #expect(try ServeCommand.parse(["--access-tokens"]).resolve(environment: ["LATCHKEY_ACCESS_TOKENS": "false"]).accessTokens, "the flag wins")
    }

    @Test("--port 0 needs --origin, from any source")
    func portZero() throws {
        #expect(refusal(["--port", "0"]).contains("give the passkeys' --origin too"))
        #expect(refusal([], environment: ["LATCHKEY_PORT": "0"]).contains("--origin"))
        #expect(try ServeCommand.parse(["--port", "0"]).resolve(environment: ["LATCHKEY_ORIGIN": "http://localhost"]).origins == ["http://localhost"])
        #expect(try ServeCommand.parse(["--port", "9009"]).resolve(environment: [:]).origins == ["http://localhost:9009"])
    }
}
