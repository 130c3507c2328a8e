import Crypto
import Foundation
import WebAuthn

/// The text of an admin API key: `lk_admin_<id>_<secret>`. The id (`ak` and 10 base32 characters) is
/// the visible prefix an operator reads in `latchkey admin keys list` to tell keys apart; the secret is
/// 32 random bytes (base64url). Only the SHA-256 of the whole text is stored (`AdminKeyRecord`), and a
/// presented key is found by its id, then its hash compared in constant time.
struct AdminKeySecret: Sendable, Equatable {
    static let prefix = "lk_admin_"
    /// The longest text a presented key may have before it is looked at (a real one has 65 characters).
    static let maximumLength = 128

    let id: String
    let text: String

    /// A new key.
    static func generate() -> AdminKeySecret {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        let idBytes = RandomBytes.make(10)
        let id = "ak" + String(idBytes.map { alphabet[Int($0) & 31] })
        return AdminKeySecret(id: id, text: prefix + id + "_" + Base64URL.encode(RandomBytes.make(32)))
    }

    /// A presented key's id, if the text has the key's shape; nil otherwise (never looked up).
    static func id(of text: String) -> String? {
        guard text.utf8.count <= maximumLength, text.hasPrefix(prefix) else { return nil }
        let rest = text.dropFirst(prefix.count)
        guard let separator = rest.firstIndex(of: "_") else { return nil }
        let id = rest[..<separator]
        guard id.count == 12, id.hasPrefix("ak"), id.allSatisfy({ ("a"..."z").contains($0) || ("2"..."7").contains($0) }) else { return nil }
        return String(id)
    }
}
