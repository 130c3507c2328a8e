import Foundation

/// An address a person is sent back to after signing in (`rd`), or the address a proxy says was asked
/// for: read by a strict parser of its own, never Foundation's lenient one, and accepted only on a host
/// under the configured domain. This is what keeps the sign-in page from being an open redirector.
///
/// Accepted: `http` or `https` (only `https` when the cookie is `Secure`), `://`, a host of letters,
/// digits, hyphens and dots that is the domain or ends with `.` + the domain, an optional port, then
/// nothing or a path starting with `/`. Refused outright, before the host is looked at: a backslash
/// (browsers read `\` as `/`), any control or non-ASCII character or space, `@` anywhere in the authority
/// (user information: `https://example.com@evil.test`), `%` in the authority, a missing `//`, a host
/// with a trailing dot, and anything longer than 2 048 bytes. Past the authority the path is the
/// app's business: `https://app.example.com//evil.test` is a path on app.example.com.
struct ForwardAuthReturnURL: Sendable, Equatable {
    let scheme: String
    /// Lower case, without the port.
    let host: String
    let port: Int?
    /// The path and query as given (at least `/`), without a fragment.
    let pathAndQuery: String

    static let maximumLength = 2048

    /// The URL, or nil when it is malformed or not on `domain` (lower case) or under it.
    init?(_ text: String, domain: String, httpsOnly: Bool) {
        guard text.utf8.count <= Self.maximumLength,
              text.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7f && $0 != "\\" })
        else { return nil }
        let lower = text.lowercased()
        let scheme: String
        if lower.hasPrefix("https://") {
            scheme = "https"
        } else if lower.hasPrefix("http://"), !httpsOnly {
            scheme = "http"
        } else {
            return nil
        }
        let rest = text.dropFirst(scheme.count + 3)
        let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[..<end].lowercased()
        guard !authority.contains("@"), !authority.contains("%") else { return nil }
        var host = authority
        var port: Int?
        if let colon = authority.lastIndex(of: ":") {
            let digits = authority[authority.index(after: colon)...]
            guard !digits.isEmpty, digits.count <= 5, digits.allSatisfy(\.isASCII), let number = Int(digits), (1...65535).contains(number) else { return nil }
            port = number
            host = String(authority[..<colon])
        }
        guard Self.isDomainName(host), host == domain || host.hasSuffix("." + domain) else { return nil }
        var tail = String(rest[end...])
        if let hash = tail.firstIndex(of: "#") { tail = String(tail[..<hash]) }
        if tail.isEmpty { tail = "/" } else if tail.hasPrefix("?") { tail = "/" + tail }
        self.scheme = scheme
        self.host = host
        self.port = port
        self.pathAndQuery = tail
    }

    /// The URL as sent on: scheme, host, port and the path with its query.
    var text: String { "\(scheme)://\(host)\(port.map { ":\($0)" } ?? "")\(pathAndQuery)" }

    /// The path without the query (still as sent, percent escapes included).
    var path: String { String(pathAndQuery.prefix { $0 != "?" }) }

    /// Labels of letters, digits and hyphens (not at a label's ends), dots between them, 253 characters at most.
    static func isDomainName(_ name: String) -> Bool { DomainName.isLowercase(name) }
}
