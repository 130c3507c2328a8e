import Foundation
import LatchkeyServer

/// The arguments of `latchkey serve`, read with `ServeSettings.all`: `--NAME VALUE` or `--NAME=VALUE`,
/// a list's flag once per item, a boolean's flag alone; and the configuration they give over the
/// environment and the configuration file. Also the help that `serve --help` shows, written from the table.
struct ServeArguments {
    typealias Invalid = ServerConfiguration.Invalid

    /// `--config`'s path, when given.
    private(set) var configPath: String?
    /// The settings given by flag, by name (a list's items in the order given; otherwise the last wins).
    private(set) var values: [String: ServeSetting.Value] = [:]

    /// Whether the arguments ask for help, wherever they do (as ArgumentParser's own `--help`).
    static func asksForHelp(_ arguments: [String]) -> Bool {
        arguments.contains("--help") || arguments.contains("-h")
    }

    /// Reads `arguments` (those after `serve`), or says in one sentence what is wrong with them.
    init(_ arguments: [String]) throws(Invalid) {
        var remaining = arguments[...]
        while let argument = remaining.popFirst() {
            guard argument.hasPrefix("--"), argument.count > 2 else {
                throw Invalid(description: "\"\(argument)\" is not a flag: every setting is given as --NAME VALUE (--help lists them)")
            }
            var name = String(argument.dropFirst(2))
            var inline: String?
            if let equals = name.firstIndex(of: "=") {
                inline = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            func value(_ label: String) throws(Invalid) -> String {
                if let inline { return inline }
                guard let next = remaining.first, !next.hasPrefix("--") else {
                    throw Invalid(description: "--\(name) needs a value: \(label)")
                }
                remaining.removeFirst()
                return next
            }
            if "--" + name == ServeSettings.configFlag {
                configPath = try value("\(ServeSettings.configFlag) <path>")
                continue
            }
            guard let setting = ServeSettings.all.first(where: { $0.flagName == name }) else { throw Self.unknownFlag(name) }
            if setting.kind == .boolean {
                guard inline == nil else {
                    throw Invalid(description: "\(setting.flag) takes no value: given, it turns the setting on, and \(setting.variable)=false or \(setting.name) = false in the file turns it off")
                }
                values[setting.name] = .boolean(true)
                continue
            }
            guard let given = try setting.value(ofText: try value(setting.flagLabel), fromFlag: true) else { continue }
            if case .list(let items) = given, case .list(let earlier)? = values[setting.name] {
                values[setting.name] = .list(earlier + items)
            } else {
                values[setting.name] = given
            }
        }
    }

    /// The configuration file to read: `--config`, else `LATCHKEY_CONFIG`, else none.
    func configurationFilePath(environment: [String: String]) -> String? {
        configPath ?? environment[ServeSettings.configVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Each setting from its flag, else its variable in `environment` (an empty one counts as unset),
    /// else `file`, else its default; not yet validated.
    func resolve(environment: [String: String], file: ConfigurationFile?) throws(Invalid) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        var unset: [ServeSetting] = []
        for setting in ServeSettings.all {
            var value = values[setting.name]
            if value == nil, let text = environment[setting.variable], !text.isEmpty {
                value = try setting.value(ofText: text, fromFlag: false)
            }
            if value == nil { value = file?.values[setting.name] }
            guard let value else {
                unset.append(setting)
                continue
            }
            do { try setting.apply(&configuration, value) } catch { throw Self.invalid(error) }
        }
        // After the rest: such a default may depend on other settings (origin on port).
        for whenUnset in unset.compactMap(\.whenUnset) {
            do { try whenUnset(&configuration) } catch { throw Self.invalid(error) }
        }
        // A file is the truth about the clients it manages, even when it declares none (any more).
        if let file {
            configuration.declaredOIDCClients = file.declaredClients
            configuration.declaredOIDCClientsFile = URL(fileURLWithPath: file.path).standardizedFileURL.path
        }
        return configuration
    }

    private static func invalid(_ error: any Error) -> Invalid {
        error as? Invalid ?? Invalid(description: "\(error)")
    }

    private static func unknownFlag(_ name: String) -> Invalid {
        if let secret = ServeSettings.all.first(where: { $0.kind == .secret && $0.name == name }) {
            return Invalid(description: "--\(name) is not a flag, since every user can read the command line: give \(secret.flag) (a file holding it) or \(secret.variable)")
        }
        let flags = ServeSettings.all.map(\.flagName) + [String(ServeSettings.configFlag.dropFirst(2))]
        let suggestion = ServeSettings.nearest(to: name, among: flags).map { " (did you mean --\($0)?)" } ?? ""
        return Invalid(description: "--\(name) is not a flag of latchkey serve\(suggestion); --help lists them")
    }

    // MARK: - Help

    /// What `latchkey serve --help` says after its abstract: every setting's flag and help, then every
    /// variable, all from `ServeSettings.all`.
    static var discussion: String {
        let introduction = """
            Every setting is a flag (--NAME), an environment variable (LATCHKEY_NAME, dashes as underscores) and \
            a key of the configuration file (NAME = value, TOML). A flag wins over the variable, the variable over \
            the file, the file over the default; an empty variable counts as unset.
            """
        let rows = [row(ServeSettings.configFlag + " <path>", "\(ServeSettings.configHelp) Or \(ServeSettings.configVariable).")]
            + ServeSettings.all.map { row($0.flagLabel, $0.helpSentence) }
        let variables = ["\(ServeSettings.configVariable) (as \(ServeSettings.configFlag))"] + ServeSettings.all.map(\.variableDescription)
            + ["LOG_LEVEL (trace, debug, info, notice, warning, error or critical; default info)"]
        return wrap(introduction, width: helpWidth).joined(separator: "\n") + "\n\nSETTINGS:\n" + rows.joined(separator: "\n")
            + "\n\n" + wrap("ENVIRONMENT: " + variables.joined(separator: ", ") + ".", width: helpWidth).joined(separator: "\n")
    }

    /// ArgumentParser's layout: the flag from column 2, its help from column 26, lines of at most 79
    /// (ArgumentParser wraps the discussion again at the terminal's width, 80 when it has none, and
    /// breaks a line that fills all 80).
    static let helpWidth = 79
    private static let helpColumn = 26

    static func row(_ label: String, _ text: String) -> String {
        let lines = wrap(text, width: helpWidth - helpColumn)
        let indent = String(repeating: " ", count: helpColumn)
        let head = "  " + label
        let first = head.count + 2 <= helpColumn
            ? [head.padding(toLength: helpColumn, withPad: " ", startingAt: 0) + (lines.first ?? "")]
            : [head, indent + (lines.first ?? "")]
        return (first + lines.dropFirst().map { indent + $0 }).joined(separator: "\n")
    }

    /// `text` in lines of at most `width` characters, broken between words (a longer word on its own).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if line.isEmpty {
                line = String(word)
            } else if line.count + 1 + word.count <= width {
                line += " " + word
            } else {
                lines.append(line)
                line = String(word)
            }
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}

extension ServeSettings {
    /// The setting a configuration file's key sets, and whether the key names a file holding its value
    /// (a secret's `NAME-file`).
    static func setting(forFileKey key: String) -> (setting: ServeSetting, namesFile: Bool)? {
        for setting in all where setting.fileKeys.contains(key) {
            return (setting, setting.kind == .secret && key == setting.name + "-file")
        }
        return nil
    }

    /// Every key the configuration file may hold.
    static var fileKeys: [String] { all.flatMap(\.fileKeys) }

    /// The name among `names` nearest to `name`, when it is near enough to be what was meant.
    static func nearest(to name: String, among names: [String]) -> String? {
        guard let nearest = names.min(by: { distance(name, $0) < distance(name, $1) }) else { return nil }
        return distance(name, nearest) <= max(2, name.count / 3) ? nearest : nil
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
