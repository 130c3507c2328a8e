import FuzzSupport
import WebAuthn

/// The strict JSON parser (`JSONValue`) on arbitrary bytes, and its round trips: a parsed document
/// written back compactly parses to an equal document, `validate` agrees with `parse`, and every string
/// it produced survives `JSONValue.quoted` (the CCDToString escaping the soft authenticator uses).
enum JSONFuzzTarget {
    static func run(_ bytes: [UInt8]) {
        let parsed = try? JSONValue.parse(bytes)
        fuzzCheck(((try? JSONValue.validate(bytes)) != nil) == (parsed != nil), "validate and parse disagree")
        guard let parsed else { return }
        let written = JSONText.write(parsed)
        guard let again = try? JSONValue.parse(Array(written.utf8)) else {
            fuzzCheck(false, "the written form of a parsed document does not parse: \(written.prefix(200))")
            return
        }
        fuzzCheck(again == parsed, "the written form parses to a different document")
        forEachString(in: parsed) { text in
            fuzzCheck((try? JSONValue.parse(Array(JSONValue.quoted(text).utf8))) == .string(text), "quoted() does not round-trip a string")
        }
    }

    private static func forEachString(in value: JSONValue, _ body: (String) -> Void) {
        switch value {
        case .string(let text): body(text)
        case .array(let items): for item in items { forEachString(in: item, body) }
        case .object(let object):
            for member in object.members {
                body(member.key)
                forEachString(in: member.value, body)
            }
        case .null, .bool, .number: break
        }
    }
}
