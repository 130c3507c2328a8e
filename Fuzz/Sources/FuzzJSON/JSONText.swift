import WebAuthn

/// A compact JSON writer for the round-trip property, kept apart from the library's own writers so
/// the property is checked against an independent encoding: strings escaped as RFC 8259 §7 requires
/// (and no more), numbers exactly as parsed.
enum JSONText {
    static func write(_ value: JSONValue) -> String {
        var out = ""
        append(value, to: &out)
        return out
    }

    private static func append(_ value: JSONValue, to out: inout String) {
        switch value {
        case .null: out += "null"
        case .bool(let flag): out += flag ? "true" : "false"
        case .number(let text): out += text
        case .string(let text): appendString(text, to: &out)
        case .array(let items):
            out += "["
            for (index, item) in items.enumerated() {
                if index > 0 { out += "," }
                append(item, to: &out)
            }
            out += "]"
        case .object(let object):
            out += "{"
            for (index, member) in object.members.enumerated() {
                if index > 0 { out += "," }
                appendString(member.key, to: &out)
                out += ":"
                append(member.value, to: &out)
            }
            out += "}"
        }
    }

    private static func appendString(_ text: String, to out: inout String) {
        out += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
