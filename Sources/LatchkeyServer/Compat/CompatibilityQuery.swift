import Foundation
import LatchkeyAPI

/// A URL query string read the way the compatibility clients write it: `name=value` pairs joined by `&`,
/// each percent-decoded once.
///
/// `+` stays a plus. PHP's `$_GET` (PassKeysDemo's server) turns it into a space, but `PKD_Handler`
/// encodes with `.urlQueryAllowed`, which leaves a `+` in a name as it is: read PHP's way, "C++" would be
/// stored as "C  ". A space arrives as `%20` from that client, so nothing is lost by keeping `+`.
/// A name given twice is refused rather than resolved by a rule the client may not share.
struct CompatibilityQuery: Sendable, Equatable {
    private(set) var values: [String: String] = [:]

    init(_ query: String?) throws(APIError) {
        guard let query, !query.isEmpty else { return }
        guard query.utf8.count <= 16 * 1024 else {
            throw APIError(.queryTooLong, "The query string is longer than 16 KiB.")
        }
        for pair in query.split(separator: "&", omittingEmptySubsequences: true) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = String(parts[0]).removingPercentEncoding, !name.isEmpty else {
                throw APIError(.malformedQuery, "The query string has a parameter without a readable name.")
            }
            let raw = parts.count == 2 ? String(parts[1]) : ""
            guard let value = raw.removingPercentEncoding else {
                throw APIError(.malformedQuery, "The query parameter \(Self.printable(name)) is not valid percent-encoded UTF-8.")
            }
            guard values[name] == nil else {
                throw APIError(.duplicateParameter, "The query parameter \(Self.printable(name)) is given more than once.")
            }
            values[name] = value
        }
    }

    subscript(name: String) -> String? { values[name] }

    /// A parameter name as it may appear in a message: short, and only visible ASCII.
    private static func printable(_ name: String) -> String {
        let kept = name.prefix(40).unicodeScalars.filter { $0.isASCII && $0.value >= 0x21 && $0.value < 0x7f }
        return String(String.UnicodeScalarView(kept))
    }
}

/// The byte encodings of the compatibility APIs' bodies.
enum CompatibilityEncoding {
    /// Standard base64 (RFC 4648 §4, `+/` and `=` padding), as `Data.base64EncodedString()` writes it and
    /// PassKeysDemo's bodies carry it; unpadded input is accepted too. Nil for anything else.
    static func standardBase64(_ text: String) -> [UInt8]? {
        guard !text.isEmpty, text.utf8.count <= 96 * 1024 else { return nil }
        var padded = text
        if text.utf8.count % 4 != 0 { padded += String(repeating: "=", count: 4 - text.utf8.count % 4) }
        return Data(base64Encoded: padded).map { [UInt8]($0) }
    }

    /// Every character but RFC 3986's unreserved ones as UTF-8 `%XX`: what `removingPercentEncoding`
    /// turns back into `text` exactly (PassKeysDemo's client applies it to what `read` returns).
    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }

    private static let unreserved = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
}
