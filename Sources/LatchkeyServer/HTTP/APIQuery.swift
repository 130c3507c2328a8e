import Foundation
import Hummingbird
import HummingbirdCore
import LatchkeyAPI

/// Query parameters of the admin API and the account's history, read with one rule each: a malformed one is 400
/// `invalid_parameter` naming it, never a silent default.
struct APIQuery {
    let parameters: FlatDictionary<Substring, Substring>

    init(_ parameters: FlatDictionary<Substring, Substring>) {
        self.parameters = parameters
    }

    /// The request's query read as browsers encode one (`application/x-www-form-urlencoded`, what an HTML
    /// form and `URLSearchParams` send): `+` is a space and `%2B` a plus. Hummingbird's `queryParameters`
    /// decodes `%XX` only, so `q=Ada+Lovelace` would have searched for "Ada+Lovelace". A value that is not
    /// valid percent-encoding is kept as it came.
    init(_ uri: URI) {
        func decode(_ text: Substring) -> Substring {
            let spaced = text.replacingOccurrences(of: "+", with: " ")
            return (spaced.removingPercentEncoding ?? spaced)[...]
        }
        var pairs: [(key: Substring, value: Substring)] = []
        for pair in (uri.query ?? "").split(separator: "&") {
            if let equals = pair.firstIndex(of: "=") {
                pairs.append((key: decode(pair[..<equals]), value: decode(pair[pair.index(after: equals)...])))
            } else {
                pairs.append((key: decode(pair), value: ""))
            }
        }
        self.parameters = FlatDictionary(pairs)
    }

    /// The longest text a parameter may hold.
    static let textLimit = 256
    static let defaultLimit = 50
    static let maximumLimit = 500

    func text(_ name: String) throws -> String? {
        guard let value = parameters[name[...]] else { return nil }
        guard value.count <= Self.textLimit else { throw APIError(.invalidParameter, "\(name) is longer than \(Self.textLimit) characters.") }
        let text = String(value)
        return text.isEmpty ? nil : text
    }

    /// A time: ISO 8601 (`2026-11-25T10:00:00Z`), or a date (`2026-11-25`, midnight UTC).
    func time(_ name: String) throws -> Date? {
        guard let text = try text(name) else { return nil }
        guard let date = Self.time(text) else {
            throw APIError(.invalidParameter, "\(name) must be an ISO 8601 time such as 2026-11-25T10:00:00Z, or a date such as 2026-11-25.")
        }
        return date
    }

    static func time(_ text: String) -> Date? {
        if let date = try? Date(text, strategy: .iso8601) { return date }
        return try? Date(text + "T00:00:00Z", strategy: .iso8601)
    }

    func limit() throws -> Int {
        guard let text = try text("limit") else { return Self.defaultLimit }
        guard let limit = Int(text), (1...Self.maximumLimit).contains(limit) else {
            throw APIError(.invalidParameter, "limit must be a whole number from 1 to \(Self.maximumLimit).")
        }
        return limit
    }

    /// The audit trail's cursor: the last event id of the page before.
    func cursor() throws -> Int64? {
        guard let text = try text("cursor") else { return nil }
        guard let cursor = Int64(text), cursor > 0 else { throw APIError(.invalidParameter, "cursor must be the next value of a previous page.") }
        return cursor
    }

    func flag(_ name: String) throws -> Bool {
        guard let text = try text(name) else { return false }
        switch text {
        case "true", "1": return true
        case "false", "0": return false
        default: throw APIError(.invalidParameter, "\(name) must be true or false.")
        }
    }
}
