import Foundation
import WebAuthn

/// clientDataJSON as a browser serializes it (WebAuthn L3 §5.8.1.1): members in the order type,
/// challenge, origin, crossOrigin, with JSON string escaping.
enum ClientData {
    static func json(type: String, challenge: [UInt8], origin: String) -> [UInt8] {
        let text = "{\"type\":\(quoted(type)),\"challenge\":\(quoted(Base64URL.encode(challenge))),"
            + "\"origin\":\(quoted(origin)),\"crossOrigin\":false}"
        return Array(text.utf8)
    }

    /// §5.8.1.1's CCDToString: quote, and escape `"`, `\` and control characters.
    private static func quoted(_ string: String) -> String {
        var out = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
