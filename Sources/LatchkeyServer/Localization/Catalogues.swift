import Foundation

/// Every shipped language, and the choice of one for a request: the person's own choice (the page's
/// picker, sent as `?language=`), then the `Accept-Language` header's ranges in their order, then the
/// server's `--default-language`. A range matches a catalogue exactly (`pt-br`) or by its primary
/// language (`de-at` → `de`, `zh-cn` → `zh-Hans`; traditional Chinese, `zh-tw`/`zh-hk`/`zh-hant`, is not
/// given simplified); the pseudo-locale only by its exact code.
package struct Catalogues: Sendable {
    package static let english = "en"

    package let byCode: [String: MessageCatalogue]
    package let defaultLanguage: String

    /// The codes, English first, then by code.
    package var codes: [String] {
        byCode.keys.sorted { ($0 == Self.english ? "" : $0) < ($1 == Self.english ? "" : $1) }
    }

    package init(catalogues: [MessageCatalogue], defaultLanguage: String) throws {
        var byCode: [String: MessageCatalogue] = [:]
        for catalogue in catalogues { byCode[catalogue.code] = catalogue }
        guard byCode[Self.english] != nil else { throw ServerConfiguration.Invalid(description: "the English catalogue en.json is missing from the installation") }
        guard let chosen = byCode.keys.first(where: { $0.lowercased() == defaultLanguage.lowercased() }) else {
            throw ServerConfiguration.Invalid(
                description: "the default language \(defaultLanguage) is not one of the shipped languages: \(byCode.keys.sorted().joined(separator: ", "))")
        }
        self.byCode = byCode
        self.defaultLanguage = chosen
    }

    /// Reads `Public/locales/*.json` from the installation.
    package static func load(defaultLanguage: String) throws -> Catalogues {
        guard let folder = Bundle.module.url(forResource: "locales", withExtension: nil, subdirectory: "Public") else {
            throw ServerConfiguration.Invalid(description: "the message catalogues (Public/locales) are missing from the installation")
        }
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil).filter { $0.pathExtension == "json" }
        let catalogues = try files.map { try MessageCatalogue(code: $0.deletingPathExtension().lastPathComponent, data: Data(contentsOf: $0)) }
        return try Catalogues(catalogues: catalogues, defaultLanguage: defaultLanguage)
    }

    /// The shipped catalogues, read once, for the server's own words (mails, the pages it renders); nil
    /// only when the installation lacks them (the page's `LocaleController` refuses to start then).
    package static let shipped: Catalogues? = try? Catalogues.load(defaultLanguage: english)

    /// The language for a request (see the type's comment).
    package func negotiate(choice: String?, acceptLanguage: String?) -> String {
        negotiate(choice: choice, acceptLanguage: acceptLanguage, fallback: defaultLanguage)
    }

    /// The same, with another last resort than `defaultLanguage` (the configuration's, for `shipped`).
    package func negotiate(choice: String?, acceptLanguage: String?, fallback: String) -> String {
        if let choice, choice.count <= AcceptLanguage.maximumRangeLength, let code = exact(choice.lowercased()) { return code }
        for range in AcceptLanguage.ranges(acceptLanguage) {
            if range == "*" { return exact(fallback.lowercased()) ?? defaultLanguage }
            if let code = exact(range) ?? primary(range) { return code }
        }
        return exact(fallback.lowercased()) ?? defaultLanguage
    }

    /// A page's words for a request: the language of its Accept-Language (else `fallback`), and the
    /// message of each key in it. English (the keys themselves, should the catalogues be missing) when
    /// nothing else can be had.
    package static func words(acceptLanguage: String?, fallback: String) -> (language: String, direction: String, say: (String, [String: String]) -> String) {
        guard let shipped else { return (english, "ltr", { key, _ in key }) }
        let language = shipped.negotiate(choice: nil, acceptLanguage: acceptLanguage, fallback: fallback)
        return (language, shipped.byCode[language]?.direction ?? "ltr", { key, parameters in shipped.message(key, language: language, parameters) })
    }

    private func exact(_ range: String) -> String? {
        byCode.keys.first { $0.lowercased() == range }
    }

    private func primary(_ range: String) -> String? {
        let subtags = range.split(separator: "-")
        guard let language = subtags.first else { return nil }
        if language == "zh", subtags.dropFirst().contains(where: { ["tw", "hk", "mo", "hant"].contains($0) }) { return nil }
        return codes.first { code in
            guard let catalogue = byCode[code], !catalogue.isPseudo else { return false }
            return code.lowercased().split(separator: "-").first == language
        }
    }

    /// The message `key` in `language` (English when that catalogue lacks it), its `{name}`s replaced by
    /// `parameters`; a plural message picks its form by `count` with `PluralRules`.
    package func message(_ key: String, language: String, _ parameters: [String: String] = [:], count: Int? = nil) -> String {
        let message = byCode[language]?.messages[key] ?? byCode[Self.english]?.messages[key]
        var text: String
        switch message {
        case .text(let sentence)?: text = sentence
        case .plural(let forms)?: text = forms[PluralRules.category(of: count ?? 0, language: language).rawValue] ?? forms["other"] ?? key
        case nil: text = key
        }
        var all = parameters
        if let count, all["count"] == nil { all["count"] = String(count) }
        return Self.filling(text, with: all)
    }

    /// `text` with each `{name}` that `parameters` has replaced by its value, in one pass: a value that
    /// itself holds `{…}` (a person's name) is never read as a parameter.
    static func filling(_ text: String, with parameters: [String: String]) -> String {
        var result = ""
        var rest = text[...]
        while let open = rest.firstIndex(of: "{") {
            result += rest[..<open]
            let after = rest[rest.index(after: open)...]
            if let close = after.firstIndex(of: "}"), let value = parameters[String(after[..<close])] {
                result += value
                rest = after[after.index(after: close)...]
            } else {
                result += "{"
                rest = after
            }
        }
        return result + rest
    }
}
