import Foundation
import LatchkeyServer
import TOMLKit

/// `latchkey serve --config FILE` (or `LATCHKEY_CONFIG`): settings from a TOML file, each named as its
/// flag's long name, so the file reads like the command line (`port = 8080`, `origin = ["https://…"]`).
///
/// The file does not fill a `ServerConfiguration` itself. It becomes a dictionary of the environment
/// variables the flags already read (`port = 8080` → `LATCHKEY_PORT=8080`), the real environment is laid
/// over it, and `ServeCommand.resolve(environment:)` reads flag ?? variable ?? default as before. So the
/// order flag > environment > file > default holds through one code path, the file's values meet the same
/// checks as a variable's, and a new flag is one line in `settings`.
///
/// TOML (TOMLKit) rather than YAML: its types are strict (`8080` is an integer, `"8080"` a string, and
/// `no` is not a boolean), a parse error has a line and a column, and the whole table can be walked, so
/// an unknown key is refused instead of silently ignored.
struct ConfigurationFile {
    /// What a setting's value must be in the file, and how it is written as an environment variable.
    enum Kind: Sendable {
        case string
        /// A whole number (the flags parsed as `Int`).
        case integer
        /// A number of seconds that may have a fraction (the flags parsed as `Double`).
        case seconds
        case boolean
        /// An array of strings (a single string is taken as one item); written comma-separated.
        case list
        /// A string among these.
        case choice([String])
        /// `sqlite:PATH` or a PostgreSQL URL, whose password makes the file a secret.
        case database
        /// The introspection secret itself: the file must then be readable by its owner only.
        case secret
        /// The path of a file holding a secret; read here, its content becomes `variable`.
        case secretFile
    }

    struct Setting: Sendable {
        let key: String
        let variable: String
        let kind: Kind
        init(_ key: String, _ variable: String, _ kind: Kind) {
            self.key = key
            self.variable = variable
            self.kind = kind
        }
    }

    /// Every setting the file may hold: a `latchkey serve` flag's long name, the variable it stands for.
    /// A new flag of `serve` needs its line here (a test compares this list with `serve --help`).
    static let settings: [Setting] = [
        Setting("host", "LATCHKEY_HOST", .string),
        Setting("port", "LATCHKEY_PORT", .integer),
        Setting("rp-id", "LATCHKEY_RP_ID", .string),
        Setting("rp-name", "LATCHKEY_RP_NAME", .string),
        Setting("origin", "LATCHKEY_ORIGIN", .list),
        Setting("database", "LATCHKEY_DATABASE", .database),
        Setting("key-file", "LATCHKEY_KEY_FILE", .string),
        Setting("max-passkeys-per-account", "LATCHKEY_MAX_PASSKEYS_PER_ACCOUNT", .integer),
        Setting("add-passkey-window", "LATCHKEY_ADD_PASSKEY_WINDOW", .integer),
        Setting("head-timeout", "LATCHKEY_HEAD_TIMEOUT", .integer),
        Setting("session-ttl", "LATCHKEY_SESSION_TTL", .integer),
        Setting("challenge-ttl", "LATCHKEY_CHALLENGE_TTL", .integer),
        Setting("user-verification", "LATCHKEY_USER_VERIFICATION", .choice(["required", "preferred"])),
        Setting("attestation", "LATCHKEY_ATTESTATION", .choice(["none", "direct"])),
        Setting("sign-count", "LATCHKEY_SIGN_COUNT", .choice(["reject", "warn"])),
        Setting("apple-app-id", "LATCHKEY_APPLE_APP_ID", .list),
        Setting("android-app", "LATCHKEY_ANDROID_APP", .list),
        Setting("threads", "LATCHKEY_THREADS", .integer),
        Setting("rate-limit", "LATCHKEY_RATE_LIMIT", .integer),
        Setting("rate-limit-scope", "LATCHKEY_RATE_LIMIT_SCOPE", .choice(["instance", "database"])),
        Setting("housekeeping-interval", "LATCHKEY_HOUSEKEEPING_INTERVAL", .seconds),
        Setting("access-tokens", "LATCHKEY_ACCESS_TOKENS", .boolean),
        Setting("access-token-ttl", "LATCHKEY_ACCESS_TOKEN_TTL", .integer),
        Setting("signing-key-lifetime", "LATCHKEY_SIGNING_KEY_LIFETIME", .integer),
        Setting("token-issuer", "LATCHKEY_TOKEN_ISSUER", .string),
        Setting("token-audience", "LATCHKEY_TOKEN_AUDIENCE", .string),
        Setting("introspection-secret", "LATCHKEY_INTROSPECTION_SECRET", .secret),
        Setting("introspection-secret-file", "LATCHKEY_INTROSPECTION_SECRET", .secretFile),
        Setting("trust-forwarded-for", "LATCHKEY_TRUST_FORWARDED_FOR", .boolean),
        Setting("database-pool", "LATCHKEY_DATABASE_POOL", .integer),
        Setting("database-timeout", "LATCHKEY_DATABASE_TIMEOUT", .seconds),
        Setting("idle-timeout", "LATCHKEY_IDLE_TIMEOUT", .integer),
        Setting("max-connections", "LATCHKEY_MAX_CONNECTIONS", .integer),
        Setting("max-connections-per-client", "LATCHKEY_MAX_CONNECTIONS_PER_CLIENT", .integer),
        Setting("compat", "LATCHKEY_COMPAT", .list),
        Setting("compat-passkeysdemo-path", "LATCHKEY_COMPAT_PASSKEYSDEMO_PATH", .string),
    ]

    typealias Invalid = ServerConfiguration.Invalid

    /// The path as given, for messages.
    let path: String
    /// The file's settings as the environment variables they stand for.
    let variables: [String: String]

    /// Reads and checks the file at `path`.
    init(path: String) throws(Invalid) {
        guard FileManager.default.fileExists(atPath: path) else {
            throw Invalid(description: "the configuration file \(path) does not exist")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw Invalid(description: "the configuration file \(path) cannot be read (is it a readable file?)")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw Invalid(description: "the configuration file \(path) is not UTF-8 text")
        }
        var status = stat()
        let mode = stat(path, &status) == 0 ? status.st_mode : 0
        try self.init(text: text, path: path, readableByOthers: mode & (S_IRGRP | S_IROTH) != 0, mode: mode & 0o777)
    }

    /// Checks `text`, the content of the file `path`; `readableByOthers` is whether its group or other
    /// users may read it (then it must hold no secret).
    init(text: String, path: String, readableByOthers: Bool = false, mode: mode_t = 0o600) throws(Invalid) {
        self.path = path
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw Self.parseError(error, text: text, path: path)
        } catch {
            throw Invalid(description: "the configuration file \(path) is not valid TOML")
        }
        var variables: [String: String] = [:]
        /// What the file holds that others must not read, and where else it could be given.
        var secrets: [(what: String, elsewhere: String)] = []
        // Sorted, so that of several mistakes the same one is reported each time.
        let entries = table.map { (key: $0.0, value: $0.1) }.sorted { $0.key < $1.key }
        if Set(entries.map(\.key)).isSuperset(of: ["introspection-secret", "introspection-secret-file"]) {
            throw Invalid(description: "the configuration file \(path) sets both introspection-secret and introspection-secret-file; keep one")
        }
        for (key, value) in entries {
            guard let setting = Self.settings.first(where: { $0.key == key }) else {
                throw Invalid(description: Self.unknownKeySentence(key, path: path))
            }
            if case .secret = setting.kind { secrets.append(("the introspection secret", "move it to introspection-secret-file")) }
            let text = try Self.variableText(value, for: setting, path: path)
            if case .database = setting.kind, Self.hasPassword(text) { secrets.append(("a database password", "give the URL in LATCHKEY_DATABASE")) }
            variables[setting.variable] = text
        }
        if readableByOthers, let secret = secrets.first {
            throw Invalid(description: """
                the configuration file \(path) holds \(secret.what) but other users can read it (mode \(String(mode, radix: 8))): \
                chmod 600 \(path), or \(secret.elsewhere)
                """)
        }
        self.variables = variables
    }

    /// The variables to resolve with: the environment's, and the file's where the environment has none.
    /// An empty variable counts as unset (`LATCHKEY_PORT= latchkey serve …` does not hide the file's port).
    func layered(under environment: [String: String]) -> [String: String] {
        variables.merging(environment) { file, environment in environment.isEmpty ? file : environment }
    }

    // MARK: - One value

    /// The value as its environment variable would hold it, or the sentence that says what is wrong.
    /// No sentence repeats a value that could be a secret.
    private static func variableText(_ value: TOMLValueConvertible, for setting: Setting, path: String) throws(Invalid) -> String {
        func wrongType(_ expected: String) -> Invalid {
            // `port = "8080"`: the usual slip from environment variables, where everything is a string.
            let hint = value.type == .string && !expected.hasPrefix("a string") ? " (write it without quotes)" : ""
            return Invalid(description: "the setting \(setting.key) in \(path) must be \(expected), not \(describe(value.type))\(hint)")
        }
        switch setting.kind {
        case .string:
            guard let string = value.string else { throw wrongType("a string (\(setting.key) = \"…\")") }
            return string
        case .integer:
            guard let integer = value.int else { throw wrongType("a whole number") }
            return String(integer)
        case .seconds:
            if let integer = value.int { return String(integer) }
            guard let seconds = value.double else { throw wrongType("a number of seconds") }
            return "\(seconds)"
        case .boolean:
            guard let boolean = value.bool else { throw wrongType("true or false") }
            return boolean ? "true" : "false"
        case .list:
            let items: [String]
            if let string = value.string {
                items = [string]
            } else if let array = value.array {
                var strings: [String] = []
                for item in array {
                    guard let string = item.string else { throw wrongType("an array of strings (\(setting.key) = [\"…\", \"…\"])") }
                    strings.append(string)
                }
                items = strings
            } else {
                throw wrongType("an array of strings (\(setting.key) = [\"…\", \"…\"])")
            }
            // The variable is comma-separated, so an item with a comma would silently become two.
            if let item = items.first(where: { $0.contains(",") }) {
                throw Invalid(description: "the setting \(setting.key) in \(path) has an item with a comma, \"\(item)\"; give each as its own string")
            }
            return items.joined(separator: ",")
        case .choice(let choices):
            let expected = choices.map { "\"\($0)\"" }.joined(separator: " or ")
            guard let string = value.string else { throw wrongType(expected) }
            guard choices.contains(string) else {
                throw Invalid(description: "the setting \(setting.key) in \(path) must be \(expected), not \"\(string)\"")
            }
            return string
        case .database:
            guard let url = value.string else { throw wrongType("a string (database = \"sqlite:latchkey.sqlite\")") }
            // DatabaseLocation's own sentence would repeat the URL, password and all.
            guard url.hasPrefix("sqlite:") || url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
                throw Invalid(description: "the setting database in \(path) must be sqlite:PATH or postgres://user:password@host:port/database")
            }
            return url
        case .secret:
            guard let secret = value.string else { throw wrongType("a string") }
            return secret
        case .secretFile:
            guard let secretPath = value.string else { throw wrongType("a string, the path of a file") }
            // As --introspection-secret-file: never logged, and a trailing line break is not part of it.
            guard let secret = try? String(contentsOfFile: secretPath, encoding: .utf8) else {
                throw Invalid(description: "the introspection secret file \(secretPath), named in \(path), cannot be read")
            }
            return secret.trimmingCharacters(in: .newlines)
        }
    }

    private static func hasPassword(_ url: String) -> Bool {
        URLComponents(string: url)?.password.map { !$0.isEmpty } ?? false
    }

    private static func describe(_ type: TOMLType) -> String {
        switch type {
        case .string: "a string"
        case .int: "a whole number"
        case .double: "a number with a fraction"
        case .bool: "true or false"
        case .array: "an array"
        case .table: "a table (settings are not grouped in tables: write database-pool = 8, not [database] pool = 8)"
        case .date, .time, .dateTime: "a date or time"
        }
    }

    // MARK: - Sentences

    private static func unknownKeySentence(_ key: String, path: String) -> String {
        let nearest = settings.map(\.key).min { distance(key, $0) < distance(key, $1) }
        let suggestion = nearest.flatMap { distance(key, $0) <= max(2, key.count / 3) ? " (did you mean \($0)?)" : nil } ?? ""
        return "the configuration file \(path) has an unknown setting, \(key)\(suggestion); its settings are the long flag names of latchkey serve (see --help)"
    }

    /// toml++'s message with its line and column; but when the line sets a secret, only where it is,
    /// since the library's message may quote the text it could not read.
    private static func parseError(_ error: TOMLParseError, text: String, path: String) -> Invalid {
        let line = error.source.begin.line
        let where_ = "line \(line), column \(error.source.begin.column)"
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let source = line >= 1 && line <= lines.count ? lines[line - 1].trimmingCharacters(in: .whitespaces) : ""
        let secretLine = ["introspection-secret", "\"introspection-secret", "database", "\"database"].contains { source.hasPrefix($0) }
        var message = error.description
        if let colon = message.range(of: "Error while parsing ", options: .anchored), let rest = message[colon.upperBound...].range(of: ": ") {
            message = String(message[rest.upperBound...])  // "Error while parsing key-value pair: expected value" → "expected value"
        }
        let detail = secretLine ? "the value cannot be read (not repeated here: it may be a secret)" : message
        return Invalid(description: "the configuration file \(path) is not valid TOML at \(where_): \(detail)")
    }

    /// Levenshtein distance, for "did you mean".
    private static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var previous = Array(0...b.count)
        for (i, characterOfA) in a.enumerated() {
            var current = [i + 1]
            for (j, characterOfB) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (characterOfA == characterOfB ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}

extension ServeCommand {
    /// The configuration file to read: `--config`, else `LATCHKEY_CONFIG`, else none.
    func configurationFilePath(environment: [String: String]) -> String? {
        config ?? environment["LATCHKEY_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Flags, then `environment`, then the configuration file, then the defaults.
    func resolveWithConfigurationFile(environment: [String: String]) throws(ServerConfiguration.Invalid) -> ServerConfiguration {
        guard let path = configurationFilePath(environment: environment) else { return try resolve(environment: environment) }
        return try resolve(environment: ConfigurationFile(path: path).layered(under: environment))
    }
}
