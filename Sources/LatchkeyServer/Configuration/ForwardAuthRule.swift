import Foundation
import LatchkeyAPI

/// One `--forward-auth-rule`: which requests it is about (a host, wildcards allowed, and an optional path
/// prefix) and who may pass. Written `HOST[/PATH] POLICY [max-age=SECONDS]`, for example
/// `grafana.example.com signed-in`, `*.example.com/admin groups=admins|ops max-age=300`, `wiki.example.com deny`.
///
/// Groups are separated by `|` (read "or"), never a comma: a list setting's variable
/// (`LATCHKEY_FORWARD_AUTH_RULE`) separates its items with commas. The rules are kept as text in the configuration (a flag, a variable, a list in the file) so that they
/// travel the way every other setting does; the first rule that matches a request decides it
/// (`ForwardAuthRules`), and a request no rule matches is refused.
public struct ForwardAuthRule: Sendable, Equatable, CustomStringConvertible {
    /// Who may pass.
    public enum Policy: Sendable, Equatable {
        /// Anyone with a full (passkey) session of an enabled account.
        case signedIn
        /// Members of at least one of these groups (`latchkey admin accounts set --groups`).
        case groups([String])
        /// Nobody.
        case deny
    }

    /// The host pattern as written, lower case: `example.com`, `*.example.com` (any name under it, not
    /// itself) or `*` (every host).
    public let host: String
    /// A path prefix, matched on whole segments (`/admin` matches `/admin` and `/admin/x`, not
    /// `/administrator`); nil for every path.
    public let pathPrefix: String?
    public let policy: Policy
    /// With it, the passkey must have been used at most this many seconds ago; an older session is asked
    /// for the passkey again.
    public let maxAge: Int?

    public init(parsing text: String) throws(ServerConfiguration.Invalid) {
        let words = text.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        let shown = Self.printable(text)
        guard words.count == 2 || words.count == 3 else {
            throw .init(description: "a forward-auth rule is HOST[/PATH] signed-in, groups=A|B or deny, then optionally max-age=SECONDS; not \"\(shown)\"")
        }
        let target = words[0].lowercased()
        let slash = target.firstIndex(of: "/")
        let host = slash.map { String(target[..<$0]) } ?? target
        guard Self.isHostPattern(host) else {
            throw .init(description: "the forward-auth rule \"\(shown)\" names the host \"\(Self.printable(host))\"; give a name such as app.example.com, *.example.com or *")
        }
        var prefix: String?
        if let slash {
            // The path as written, not lower-cased: paths are case-sensitive.
            let path = String(words[0][words[0].index(words[0].startIndex, offsetBy: target.distance(from: target.startIndex, to: slash))...])
            var trimmed = path
            while trimmed.count > 1, trimmed.hasSuffix("/") { trimmed.removeLast() }
            guard trimmed.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7f && $0 != "?" && $0 != "#" && $0 != "\\" && $0 != "%" }),
                  !trimmed.contains("//"), !trimmed.split(separator: "/").contains(where: { $0 == "." || $0 == ".." })
            else {
                throw .init(description: "the forward-auth rule \"\(shown)\" has the path \"\(Self.printable(path))\"; give a plain path such as /admin (no query, no %, no . or .. segments)")
            }
            prefix = trimmed == "/" ? nil : trimmed
        }
        let policy: Policy
        let word = words[1].lowercased()
        if word == "signed-in" {
            policy = .signedIn
        } else if word == "deny" {
            policy = .deny
        } else if word.hasPrefix("groups=") {
            let groups = words[1].dropFirst("groups=".count).split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            // A group's name as accounts hold them (`InputRules.groupName`): a rule naming another could never match.
            guard !groups.isEmpty, groups.allSatisfy({ (1...InputRules.groupNameCharacters).contains($0.utf8.count) && $0.utf8.allSatisfy(InputRules.isNameByte) }) else {
                throw .init(description: "the forward-auth rule \"\(shown)\" names no group, an empty one, or one that is not a group's name (letters, digits, . _ -): groups=admins|ops")
            }
            policy = .groups(groups)
        } else {
            throw .init(description: "the forward-auth rule \"\(shown)\" says \"\(Self.printable(words[1]))\"; who may pass is signed-in, groups=A|B or deny")
        }
        var maxAge: Int?
        if words.count == 3 {
            guard words[2].lowercased().hasPrefix("max-age="), let seconds = Int(words[2].dropFirst("max-age=".count)), (1...31_536_000).contains(seconds) else {
                throw .init(description: "the forward-auth rule \"\(shown)\" ends with \"\(Self.printable(words[2]))\"; only max-age=SECONDS (1 to a year) may follow who may pass")
            }
            guard policy != .deny else { throw .init(description: "the forward-auth rule \"\(shown)\" denies everyone; max-age means nothing there") }
            maxAge = seconds
        }
        self.host = host
        self.pathPrefix = prefix
        self.policy = policy
        self.maxAge = maxAge
    }

    public var description: String {
        let who: String
        switch policy {
        case .signedIn: who = "signed-in"
        case .groups(let groups): who = "groups=" + groups.joined(separator: "|")
        case .deny: who = "deny"
        }
        return host + (pathPrefix ?? "") + " " + who + (maxAge.map { " max-age=\($0)" } ?? "")
    }

    /// Whether the rule is about `host` (lower case, no port) and `path` (the request's path, without its query).
    func matches(host requested: String, path: String) -> Bool {
        let hostMatches: Bool
        if host == "*" {
            hostMatches = true
        } else if host.hasPrefix("*.") {
            hostMatches = requested.hasSuffix(host.dropFirst()) && requested.count > host.count - 1
        } else {
            hostMatches = requested == host
        }
        guard hostMatches else { return false }
        guard let pathPrefix else { return true }
        return path == pathPrefix || path.hasPrefix(pathPrefix + "/")
    }

    /// `*`, or a domain name (letters, digits, hyphens, dots between labels), optionally after `*.`.
    static func isHostPattern(_ text: String) -> Bool {
        if text == "*" { return true }
        let name = text.hasPrefix("*.") ? String(text.dropFirst(2)) : text
        return DomainName.isLowercase(name)
    }

    /// The text with control characters shown as `?`, for a sentence on a terminal.
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(200).map { $0.properties.generalCategory == .control ? "?" : $0 }))
    }
}
