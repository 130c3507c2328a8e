import Crypto
import Foundation

/// A recovery code as a person reads it out or types it: 25 characters of RFC 4648's base32 alphabet in
/// five groups (`KQ4MX-…`). The first group is the grant's id — what the code is looked up by, and what
/// its wrong guesses are counted against; the other twenty characters are its secret, 100 random bits,
/// of which only the SHA-256 is stored. Reading it back forgives case, spaces, dashes and the digits
/// people write for the letters they resemble (0 for O, 1 for I, 8 for B).
struct RecoveryCode: Sendable, Equatable {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")
    static let idLength = 5
    static let secretLength = 20

    let id: String
    let secret: String

    static func generate() -> RecoveryCode {
        // 32 letters: each random byte's low five bits pick one, uniformly (256 is a multiple of 32).
        let letters = RandomBytes.make(idLength + secretLength).map { alphabet[Int($0) & 31] }
        return RecoveryCode(id: String(letters[..<idLength]), secret: String(letters[idLength...]))
    }

    /// The code in groups of five, as shown and mailed.
    var text: String {
        let all = Array(id + secret)
        return stride(from: 0, to: all.count, by: 5).map { String(all[$0..<min($0 + 5, all.count)]) }.joined(separator: "-")
    }

    var secretHash: [UInt8] { SecretDigest.of(secret) }

    /// The code in `text`, or nil when it cannot be one (never looked up then).
    static func parse(_ text: String) -> RecoveryCode? {
        guard text.utf8.count <= 64 else { return nil }
        let letters = text.uppercased().compactMap { character -> Character? in
            switch character {
            case "-", " ", "\t": return nil
            case "0": return "O"
            case "1": return "I"
            case "8": return "B"
            default: return character
            }
        }
        guard letters.count == idLength + secretLength, letters.allSatisfy(alphabet.contains) else { return nil }
        return RecoveryCode(id: String(letters[..<idLength]), secret: String(letters[idLength...]))
    }
}
