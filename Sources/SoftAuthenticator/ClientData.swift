import Foundation
import WebAuthn

/// clientDataJSON as a browser serializes it (WebAuthn L3 §5.8.1.1): members in the order type,
/// challenge, origin, crossOrigin, with JSON string escaping.
enum ClientData {
    static func json(type: String, challenge: [UInt8], origin: String) -> [UInt8] {
        let text = "{\"type\":\(JSONValue.quoted(type)),\"challenge\":\(JSONValue.quoted(Base64URL.encode(challenge))),"
            + "\"origin\":\(JSONValue.quoted(origin)),\"crossOrigin\":false}"
        return Array(text.utf8)
    }
}
