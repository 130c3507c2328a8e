import Foundation
import LatchkeyDatabase
import LatchkeyRuntime
import LatchkeyServer
import WebAuthn

/// One setting of `latchkey serve`, as `ServeSettings.all` declares it: its name, the kind of value it
/// takes, its help, and how that value sets a `ServerConfiguration` (whose property holds the default).
/// Everything else about it is derived here, so that it is written once:
///
/// - the flag `--NAME` (repeatable for a list; a boolean flag takes no value);
/// - the environment variable `LATCHKEY_NAME`, dashes as underscores (a list comma-separated, a boolean
///   `true`, `false`, `1` or `0`);
/// - the key `NAME` of the configuration file (`ConfigurationFile`, TOML);
/// - its line in `latchkey serve --help` and its variable in the help's list of variables;
/// - the line `latchkey.example.toml` must have: `NAME = DEFAULT`, or `# NAME = …` when the default is
///   not one value (`ServeSettingTests` holds the file to it).
///
/// A secret (`.secret`) is never a flag, which every user could read in `ps`: its flag is `--NAME-file`,
/// the path of a file holding it; `LATCHKEY_NAME` holds the secret itself; the file may hold it (`NAME`,
/// the file must then be private) or name a file holding it (`NAME-file`).
///
/// Reading a value checks its type and, for a choice, that it is one of them, with one sentence that
/// names where the value came from. Ranges and rules between settings are `ServerConfiguration.validate()`'s,
/// which embedders run too.
struct ServeSetting: Sendable {
    typealias Invalid = ServerConfiguration.Invalid

    /// What a setting's value is.
    enum Kind: Sendable, Equatable {
        /// Any string.
        case text
        /// A whole number.
        case integer
        /// A whole number of seconds.
        case wholeSeconds
        /// A number of seconds that may have a fraction.
        case seconds
        /// On or off: a flag without a value.
        case boolean
        /// Strings: a repeatable flag, a comma-separated variable, an array in the file.
        case list
        /// One of these strings.
        case choice([String])
        /// Some of these strings (any case): repeatable or comma-separated everywhere.
        case choices([String])
        /// `sqlite:PATH` or a PostgreSQL URL, whose password makes the configuration file a secret.
        case database
        /// A secret: never a flag (see above).
        case secret
    }

    /// A value as read from a flag, a variable or the file, before it sets the configuration.
    enum Value: Sendable, Equatable {
        case text(String)
        case integer(Int)
        case number(Double)
        case boolean(Bool)
        case list([String])
    }

    /// The flag's long name and the file's key.
    let name: String
    let kind: Kind
    /// What it does, as a phrase without a final period; `help` adds the default and "repeatable".
    let help: String
    /// The default in words, when `ServerConfiguration`'s own is not it (it depends on other settings).
    let defaultText: String?
    /// Sets the configuration from a value of `kind`; throws `Invalid` for a value it cannot take.
    let apply: @Sendable (inout ServerConfiguration, Value) throws -> Void
    /// The configuration's value as this setting would give it; nil when there is none to give (an
    /// optional that is unset by default).
    let read: @Sendable (ServerConfiguration) -> Value?
    /// What to do when no flag, variable or file sets it, after every other setting has been applied.
    let whenUnset: (@Sendable (inout ServerConfiguration) throws -> Void)?

    init(
        _ name: String, _ kind: Kind, help: String, default defaultText: String? = nil,
        apply: @escaping @Sendable (inout ServerConfiguration, Value) throws -> Void,
        read: @escaping @Sendable (ServerConfiguration) -> Value?,
        whenUnset: (@Sendable (inout ServerConfiguration) throws -> Void)? = nil
    ) {
        self.name = name
        self.kind = kind
        self.help = help
        self.defaultText = defaultText
        self.apply = apply
        self.read = read
        self.whenUnset = whenUnset
    }

    // MARK: - Names

    /// The environment variable: `LATCHKEY_` and the name, dashes as underscores.
    var variable: String { "LATCHKEY_" + name.uppercased().replacingOccurrences(of: "-", with: "_") }

    /// The flag's long name, without the dashes.
    var flagName: String { kind == .secret ? name + "-file" : name }

    /// The flag as typed.
    var flag: String { "--" + flagName }

    /// The keys the configuration file may set it with.
    var fileKeys: [String] { kind == .secret ? [name, name + "-file"] : [name] }

    /// `name` in words: `introspection-secret` → "introspection secret".
    var words: String { name.replacingOccurrences(of: "-", with: " ") }

    // MARK: - Help

    /// The flag with its value's placeholder: `--port <n>`.
    var flagLabel: String {
        switch kind {
        case .text, .list: "\(flag) <\(name)>"
        case .integer: "\(flag) <n>"
        case .wholeSeconds, .seconds: "\(flag) <seconds>"
        case .boolean: flag
        case .choice(let choices), .choices(let choices): "\(flag) <\(choices.joined(separator: "|"))>"
        case .database: "\(flag) <url>"
        case .secret: "\(flag) <path>"
        }
    }

    /// The default as the help says it; nil when it goes without saying (a flag that is off).
    var defaultDescription: String? {
        if let defaultText { return defaultText }
        switch read(ServerConfiguration()) {
        case nil: return kind == .secret ? nil : "none"
        case .text(let text): return text
        case .integer(let integer): return "\(integer)"
        case .number(let number): return Self.numberText(number)
        case .boolean(let on): return on ? "on" : nil
        case .list(let items): return items.isEmpty ? "none" : items.joined(separator: ", ")
        }
    }

    /// The help sentence: `help`, then repeatability and the default in parentheses.
    var helpSentence: String {
        var notes: [String] = []
        if kind == .list { notes.append("repeatable") }
        if case .choices = kind { notes.append("repeatable or comma-separated") }
        if let defaultDescription { notes.append("default: \(defaultDescription)") }
        if kind == .secret { notes.append("or the secret itself in \(variable)") }
        let text = kind == .secret ? "A file holding \(help)" : help
        return notes.isEmpty ? text + "." : "\(text) (\(notes.joined(separator: "; ")))."
    }

    /// The variable as the help's list of variables names it, with how to write its value.
    var variableDescription: String {
        switch kind {
        case .list, .choices: "\(variable) (comma-separated)"
        case .boolean: "\(variable) (true or false)"
        case .wholeSeconds, .seconds: "\(variable) (seconds)"
        case .secret: "\(variable) (the secret itself)"
        case .text, .integer, .choice, .database: variable
        }
    }

    // MARK: - The example file

    /// How `latchkey.example.toml` must begin the setting's lines: at its default, or commented out
    /// (with a sample value) when the default is not one value.
    var exampleLines: [String] {
        guard let value = read(ServerConfiguration()) else { return fileKeys.map { "# \($0) = " } }
        return ["\(name) = \(Self.tomlText(value))"]
    }

    /// A value as TOML writes it.
    static func tomlText(_ value: Value) -> String {
        switch value {
        case .text(let text): return tomlString(text)
        case .integer(let integer): return "\(integer)"
        case .number(let number): return numberText(number)
        case .boolean(let on): return on ? "true" : "false"
        case .list(let items): return "[" + items.map(tomlString).joined(separator: ", ") + "]"
        }
    }

    private static func tomlString(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    escaped += String(format: "\\u%04X", scalar.value)
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        return "\"\(escaped)\""
    }

    /// 60 → "60", 2.5 → "2.5".
    static func numberText(_ number: Double) -> String {
        number.rounded() == number && abs(number) < 1e15 ? "\(Int(number))" : "\(number)"
    }

    // MARK: - Reading a value

    /// The value of a flag (`fromFlag`) or of a variable, or the sentence that says what is wrong with
    /// it; nil for a list with no items (as if it were not given). A secret's flag names a file, read here.
    func value(ofText text: String, fromFlag: Bool) throws(Invalid) -> Value? {
        let subject = fromFlag ? flag : variable
        func refuse(_ expected: String) -> Invalid { Invalid(description: "\(subject) must be \(expected), not \"\(text)\"") }
        func items() -> [String] {
            text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        switch kind {
        case .text, .database:
            return .text(text)
        case .integer:
            guard let integer = Int(text) else { throw refuse("a whole number") }
            return .integer(integer)
        case .wholeSeconds:
            guard let integer = Int(text) else { throw refuse("a whole number of seconds") }
            return .integer(integer)
        case .seconds:
            // `inf` and `nan` read as Doubles; no duration is either, and a later conversion of one traps.
            guard let seconds = Double(text), seconds.isFinite else { throw refuse("a number of seconds") }
            return .number(seconds)
        case .boolean:
            guard let on = ["true": true, "1": true, "false": false, "0": false][text.lowercased()] else { throw refuse("true or false") }
            return .boolean(on)
        case .list:
            if fromFlag { return .list([text]) }
            let items = items()
            return items.isEmpty ? nil : .list(items)
        case .choice(let choices):
            guard choices.contains(text) else { throw refuse(choices.joined(separator: " or ")) }
            return .text(text)
        case .choices(let choices):
            let names = items().map { $0.lowercased() }
            if let name = names.first(where: { !choices.contains($0) }) {
                throw Invalid(description: "\(subject) must be \(choices.joined(separator: " or ")), not \"\(name)\"")
            }
            return names.isEmpty ? nil : .list(names)
        case .secret:
            guard fromFlag else { return .text(text) }
            // The secret is read, never logged; a trailing line break (echo > file) is not part of it. Its file
            // is its owner's alone, as the key file is (fourth review, S4-10).
            if let refusal = OwnerOnlyFile.openToOthers("the \(words) file", at: text) { throw refusal }
            guard let secret = try? String(contentsOfFile: text, encoding: .utf8) else {
                throw Invalid(description: "the \(words) file \(text) cannot be read")
            }
            return .text(secret.trimmingCharacters(in: .newlines))
        }
    }

    /// A value as its variable would hold it (for tests and messages; a secret's is the secret).
    func variableText(_ value: Value) -> String {
        switch value {
        case .text(let text): text
        case .integer(let integer): "\(integer)"
        case .number(let number): Self.numberText(number)
        case .boolean(let on): on ? "true" : "false"
        case .list(let items): items.joined(separator: ",")
        }
    }

    /// The arguments that give a value by flag (a secret's flag needs a file: not here). Empty for a
    /// boolean that is off, which no flag gives.
    func flagArguments(_ value: Value) -> [String] {
        switch value {
        case .boolean(let on): on ? [flag] : []
        case .list(let items): items.flatMap { [flag, $0] }
        default: [flag, variableText(value)]
        }
    }
}

// MARK: - Declaring a setting

/// The ways `ServeSettings.all` declares a setting: a kind of value and the `ServerConfiguration`
/// property it sets (which also gives the default).
extension ServeSetting {
    typealias Property<T> = WritableKeyPath<ServerConfiguration, T> & Sendable

    static func text(_ name: String, _ property: Property<String>, help: String) -> ServeSetting {
        ServeSetting(name, .text, help: help, apply: { c, value in c[keyPath: property] = value.text }, read: { .text($0[keyPath: property]) })
    }

    /// A string that is unset by default; `default` says what that means.
    static func text(_ name: String, _ property: Property<String?>, help: String, default defaultText: String? = nil) -> ServeSetting {
        ServeSetting(
            name, .text, help: help, default: defaultText, apply: { c, value in c[keyPath: property] = value.text },
            read: { $0[keyPath: property].map(Value.text) })
    }

    static func integer(_ name: String, _ property: Property<Int>, help: String) -> ServeSetting {
        ServeSetting(name, .integer, help: help, apply: { c, value in c[keyPath: property] = value.integer }, read: { .integer($0[keyPath: property]) })
    }

    /// A time in seconds: whole (`whole`, the default) or with a fraction.
    static func seconds(_ name: String, _ property: Property<TimeInterval>, whole: Bool = true, help: String) -> ServeSetting {
        ServeSetting(
            name, whole ? .wholeSeconds : .seconds, help: help,
            apply: { c, value in c[keyPath: property] = whole ? TimeInterval(value.integer) : value.number },
            read: { c in whole ? .integer(Int(c[keyPath: property])) : .number(c[keyPath: property]) })
    }

    static func flag(_ name: String, _ property: Property<Bool>, help: String) -> ServeSetting {
        ServeSetting(name, .boolean, help: help, apply: { c, value in c[keyPath: property] = value.boolean }, read: { .boolean($0[keyPath: property]) })
    }

    /// Strings; `whenUnset` may give a default that depends on other settings (`default` says it).
    static func list(
        _ name: String, _ property: Property<[String]>, help: String, default defaultText: String? = nil,
        whenUnset: (@Sendable (inout ServerConfiguration) throws -> Void)? = nil
    ) -> ServeSetting {
        ServeSetting(
            name, .list, help: help, default: defaultText, apply: { c, value in c[keyPath: property] = value.list },
            read: { .list($0[keyPath: property]) }, whenUnset: whenUnset)
    }

    /// Strings that `parse` turns into items (its sentence for one it cannot); `show` writes one back.
    static func list<T: Sendable>(
        _ name: String, _ property: Property<[T]>, help: String,
        parse: @escaping @Sendable (String) throws -> T, show: @escaping @Sendable (T) -> String
    ) -> ServeSetting {
        ServeSetting(
            name, .list, help: help, apply: { c, value in c[keyPath: property] = try value.list.map(parse) },
            read: { .list($0[keyPath: property].map(show)) })
    }

    /// One of `choices`, each a word and the value it stands for.
    static func choice<T: Equatable & Sendable>(
        _ name: String, _ property: Property<T>, _ choices: [(String, T)], help: String, default defaultText: String? = nil
    ) -> ServeSetting {
        ServeSetting(
            name, .choice(choices.map(\.0)), help: help, default: defaultText,
            apply: { c, value in
                if let choice = choices.first(where: { $0.0 == value.text }) { c[keyPath: property] = choice.1 }
            },
            read: { c in choices.first { $0.1 == c[keyPath: property] }.map { .text($0.0) } })
    }

    /// One of an enumeration's cases, by raw value.
    static func choice<T: RawRepresentable<String> & CaseIterable & Equatable & Sendable>(
        _ name: String, _ property: Property<T>, help: String
    ) -> ServeSetting {
        choice(name, property, T.allCases.map { ($0.rawValue, $0) }, help: help)
    }

    /// One of an enumeration's cases, by raw value, or unset (`default` says what that means).
    static func choice<T: RawRepresentable<String> & CaseIterable & Equatable & Sendable>(
        _ name: String, _ property: Property<T?>, help: String, default defaultText: String
    ) -> ServeSetting {
        choice(name, property, T.allCases.map { ($0.rawValue, $0) }, help: help, default: defaultText)
    }

    /// Some of an enumeration's cases, by raw value.
    static func choices<T: RawRepresentable<String> & CaseIterable & Hashable & Sendable>(
        _ name: String, _ property: Property<Set<T>>, help: String
    ) -> ServeSetting {
        ServeSetting(
            name, .choices(T.allCases.map(\.rawValue)), help: help,
            apply: { c, value in c[keyPath: property] = Set(value.list.compactMap(T.init(rawValue:))) },
            read: { c in .list(T.allCases.filter { c[keyPath: property].contains($0) }.map(\.rawValue)) })
    }

    /// Some of an enumeration's cases, by raw value, in the order given (an order of preference).
    static func choices<T: RawRepresentable<String> & CaseIterable & Sendable>(
        _ name: String, _ property: Property<[T]>, help: String
    ) -> ServeSetting {
        ServeSetting(
            name, .choices(T.allCases.map(\.rawValue)), help: help,
            apply: { c, value in c[keyPath: property] = value.list.compactMap(T.init(rawValue:)) },
            read: { c in .list(c[keyPath: property].map(\.rawValue)) })
    }

    static func database(_ name: String, _ property: Property<DatabaseLocation>, help: String) -> ServeSetting {
        ServeSetting(
            name, .database, help: help, apply: { c, value in c[keyPath: property] = try DatabaseLocation(parsing: value.text) },
            read: { .text($0[keyPath: property].description) })
    }

    static func secret(_ name: String, _ property: Property<String?>, help: String) -> ServeSetting {
        ServeSetting(name, .secret, help: help, apply: { c, value in c[keyPath: property] = value.text }, read: { $0[keyPath: property].map(Value.text) })
    }
}

extension ServeSetting.Value {
    // A setting's value is always of its kind's case (`value(ofText:fromFlag:)`, `ConfigurationFile`).
    var text: String {
        guard case .text(let text) = self else { preconditionFailure("not a string: \(self)") }
        return text
    }

    var integer: Int {
        guard case .integer(let integer) = self else { preconditionFailure("not a whole number: \(self)") }
        return integer
    }

    var number: Double {
        switch self {
        case .number(let number): return number
        case .integer(let integer): return Double(integer)
        default: preconditionFailure("not a number: \(self)")
        }
    }

    var boolean: Bool {
        guard case .boolean(let on) = self else { preconditionFailure("not true or false: \(self)") }
        return on
    }

    var list: [String] {
        guard case .list(let items) = self else { preconditionFailure("not a list: \(self)") }
        return items
    }
}
