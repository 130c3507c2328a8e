import Foundation
import WebAuthn

/// One language's messages, read from `Public/locales/<code>.json`: the file the page's script and the
/// server both read, so that a language is one file. Its keys are flat (`page.login`); a value is a
/// sentence with `{name}` parameters, or an object of plural forms keyed by CLDR category (`one`,
/// `few`, `many`, `other`…). Three keys describe the language itself: `language.name` (its own name, for
/// the picker), `language.direction` (`ltr` or `rtl`) and `language.pseudo` (present in the pseudo-locale,
/// which is only for testing layouts and never chosen from Accept-Language).
package struct MessageCatalogue: Sendable {
    package enum Message: Sendable, Equatable {
        case text(String)
        case plural([String: String])
    }

    package let code: String
    package let messages: [String: Message]

    package var name: String { text("language.name") ?? code }
    package var direction: String { text("language.direction") == "rtl" ? "rtl" : "ltr" }
    package var isPseudo: Bool { messages["language.pseudo"] != nil }

    package func text(_ key: String) -> String? {
        if case .text(let text)? = messages[key] { return text }
        return nil
    }

    /// Reads one catalogue; anything but an object of strings and objects of strings is a packaging error.
    package init(code: String, data: Data) throws {
        // The strict parser's depth and size gate first, as for every JSON the server reads: a catalogue is
        // shipped with it, but one added by an operator is a file like any other.
        guard (try? JSONValue.validate(data)) != nil, let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw ServerConfiguration.Invalid(description: "the catalogue \(code).json is not a JSON object")
        }
        var messages: [String: Message] = [:]
        for (key, value) in object {
            if let text = value as? String {
                messages[key] = .text(text)
            } else if let forms = value as? [String: String], forms["other"] != nil {
                messages[key] = .plural(forms)
            } else {
                throw ServerConfiguration.Invalid(description: "the catalogue \(code).json has a message \(key) that is neither a sentence nor plural forms with \"other\"")
            }
        }
        self.code = code
        self.messages = messages
    }
}
