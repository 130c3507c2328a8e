import Foundation
import LatchkeyRuntime
import LatchkeyServer
import TOMLKit

/// `latchkey serve --config FILE` (or `LATCHKEY_CONFIG`): settings from a TOML file, each named as its
/// flag's long name, so the file reads like the command line (`port = 8080`, `origin = ["https://…"]`).
///
/// Its keys and what each must hold come from `ServeSettings.all`: the file is read into the settings'
/// values, which `ServeArguments.resolve` takes where no flag or variable gives one. So the order flag >
/// environment > file > default holds in one place, and a value of the file sets the configuration as
/// the same value from a flag does; only its type is checked here, against TOML's own types.
///
/// TOML (TOMLKit) rather than YAML: its types are strict (`8080` is an integer, `"8080"` a string, and
/// `no` is not a boolean), a parse error has a line and a column, and the whole table can be walked, so
/// an unknown key is refused instead of silently ignored.
struct ConfigurationFile {
    typealias Invalid = ServerConfiguration.Invalid

    /// The path as given, for messages.
    let path: String
    /// The file's settings by name (an empty list is left out, as if not given).
    let values: [String: ServeSetting.Value]
    /// Its `[[oidc-client]]` tables (`ConfigurationFile+OIDCClients.swift`), in the file's order.
    let declaredClients: [OIDCDeclaredClient]

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
        var values: [String: ServeSetting.Value] = [:]
        /// What the file holds that others must not read, and where else it could be given.
        var secrets: [(what: String, elsewhere: String)] = []
        // Sorted, so that of several mistakes the same one is reported each time.
        let entries = table.map { (key: $0.0, value: $0.1) }.sorted { $0.key < $1.key }
        let keys = Set(entries.map(\.key))
        for setting in ServeSettings.all where setting.fileKeys.count > 1 && keys.isSuperset(of: setting.fileKeys) {
            throw Invalid(description: "the configuration file \(path) sets both \(setting.fileKeys.joined(separator: " and ")); keep one")
        }
        var declaredClients: [OIDCDeclaredClient] = []
        for (key, value) in entries {
            if key == Self.clientsKey {
                declaredClients = try Self.declaredClients(value, path: path)
                continue
            }
            if key == "oidc", value.table != nil {
                throw Invalid(description: "the configuration file \(path) has a table oidc; declare clients as [[\(Self.clientsKey)]] (the file's keys are flat, and oidc = true turns the provider on)")
            }
            guard let (setting, namesFile) = ServeSettings.setting(forFileKey: key) else {
                throw Invalid(description: Self.unknownKeySentence(key, path: path))
            }
            if setting.kind == .secret, !namesFile { secrets.append(("the \(setting.words)", "move it to \(setting.name)-file")) }
            let read = try Self.value(value, of: setting, key: key, namesFile: namesFile, path: path)
            if setting.kind == .database, case .text(let url) = read, Self.hasPassword(url) {
                secrets.append(("a database password", "give the URL in \(setting.variable)"))
            }
            if setting.name == "smtp-url", case .text(let url) = read, Self.hasPassword(url) {
                secrets.append(("an SMTP password", "give the URL in \(setting.variable)"))
            }
            if read != .list([]) { values[setting.name] = read }
        }
        if readableByOthers, let secret = secrets.first {
            throw Invalid(description: """
                the configuration file \(path) holds \(secret.what) but other users can read it (mode \(String(mode, radix: 8))): \
                chmod 600 \(path), or \(secret.elsewhere)
                """)
        }
        self.values = values
        self.declaredClients = declaredClients
    }

    // MARK: - One value

    /// The value `key` sets `setting` to, or the sentence that says what is wrong with it. No sentence
    /// repeats a value that could be a secret.
    private static func value(
        _ value: TOMLValueConvertible, of setting: ServeSetting, key: String, namesFile: Bool, path: String
    ) throws(Invalid) -> ServeSetting.Value {
        func wrongType(_ expected: String) -> Invalid {
            // `port = "8080"`: the usual slip from environment variables, where everything is a string.
            let hint = value.type == .string && !expected.hasPrefix("a string") ? " (write it without quotes)" : ""
            return Invalid(description: "the setting \(key) in \(path) must be \(expected), not \(describe(value.type))\(hint)")
        }
        func strings() throws(Invalid) -> [String] {
            let items: [String]
            if let string = value.string {
                items = [string]
            } else if let array = value.array {
                var strings: [String] = []
                for item in array {
                    guard let string = item.string else { throw wrongType("an array of strings (\(key) = [\"…\", \"…\"])") }
                    strings.append(string)
                }
                items = strings
            } else {
                throw wrongType("an array of strings (\(key) = [\"…\", \"…\"])")
            }
            // A variable is comma-separated, so an item with a comma would silently be two there.
            if let item = items.first(where: { $0.contains(",") }) {
                throw Invalid(description: "the setting \(key) in \(path) has an item with a comma, \"\(item)\"; give each as its own string")
            }
            return items
        }
        func quoted(_ choices: [String]) -> String { choices.map { "\"\($0)\"" }.joined(separator: " or ") }
        switch setting.kind {
        case .text:
            guard let string = value.string else { throw wrongType("a string (\(key) = \"…\")") }
            return .text(string)
        case .integer:
            guard let integer = value.int else { throw wrongType("a whole number") }
            return .integer(integer)
        case .wholeSeconds:
            guard let integer = value.int else { throw wrongType("a whole number of seconds") }
            return .integer(integer)
        case .seconds:
            if let integer = value.int { return .number(Double(integer)) }
            guard let seconds = value.double, seconds.isFinite else { throw wrongType("a number of seconds") }
            return .number(seconds)
        case .boolean:
            guard let boolean = value.bool else { throw wrongType("true or false") }
            return .boolean(boolean)
        case .list:
            return .list(try strings())
        case .choice(let choices):
            guard let string = value.string else { throw wrongType(quoted(choices)) }
            guard choices.contains(string) else {
                throw Invalid(description: "the setting \(key) in \(path) must be \(quoted(choices)), not \"\(string)\"")
            }
            return .text(string)
        case .choices(let choices):
            let names = try strings().map { $0.lowercased() }
            if let name = names.first(where: { !choices.contains($0) }) {
                throw Invalid(description: "the setting \(key) in \(path) must be \(quoted(choices)), not \"\(name)\"")
            }
            return .list(names)
        case .database:
            guard let url = value.string else { throw wrongType("a string (\(key) = \"sqlite:latchkey.sqlite\")") }
            // DatabaseLocation's own sentence would repeat the URL, password and all.
            guard url.hasPrefix("sqlite:") || url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") else {
                throw Invalid(description: "the setting \(key) in \(path) must be sqlite:PATH or postgres://user:password@host:port/database")
            }
            return .text(url)
        case .secret where !namesFile:
            guard let secret = value.string else { throw wrongType("a string") }
            return .text(secret)
        case .secret:
            guard let secretPath = value.string else { throw wrongType("a string, the path of a file") }
            // As its flag: never logged, a trailing line break is not part of it, and its file is its owner's alone.
            if let refusal = OwnerOnlyFile.openToOthers("the \(setting.words) file", at: secretPath) { throw refusal }
            guard let secret = try? String(contentsOfFile: secretPath, encoding: .utf8) else {
                throw Invalid(description: "the \(setting.words) file \(secretPath), named in \(path), cannot be read")
            }
            return .text(secret.trimmingCharacters(in: .newlines))
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
        let suggestion = ServeSettings.nearest(to: key, among: ServeSettings.fileKeys).map { " (did you mean \($0)?)" } ?? ""
        return "the configuration file \(path) has an unknown setting, \(key)\(suggestion); its settings are the long flag names of latchkey serve (see --help)"
    }

    /// toml++'s message with its line and column; but when the line sets a secret, only where it is,
    /// since the library's message may quote the text it could not read.
    private static func parseError(_ error: TOMLParseError, text: String, path: String) -> Invalid {
        let line = error.source.begin.line
        let where_ = "line \(line), column \(error.source.begin.column)"
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        let source = line >= 1 && line <= lines.count ? lines[line - 1].trimmingCharacters(in: .whitespaces) : ""
        let secretKeys = ServeSettings.all.filter { $0.kind == .secret || $0.kind == .database || $0.name == "smtp-url" }.map(\.name)
        let secretLine = secretKeys.contains { source.hasPrefix($0) || source.hasPrefix("\"" + $0) }
        var message = error.description
        if let colon = message.range(of: "Error while parsing ", options: .anchored), let rest = message[colon.upperBound...].range(of: ": ") {
            message = String(message[rest.upperBound...])  // "Error while parsing key-value pair: expected value" → "expected value"
        }
        let detail = secretLine ? "the value cannot be read (not repeated here: it may be a secret)" : message
        return Invalid(description: "the configuration file \(path) is not valid TOML at \(where_): \(detail)")
    }
}
