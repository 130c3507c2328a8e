import Foundation
import LatchkeyRuntime

/// Where the data lives: an embedded SQLite file (the default), or a PostgreSQL server that several
/// Latchkey instances can share.
public enum DatabaseLocation: Sendable, Equatable, CustomStringConvertible {
    case sqlite(path: String)
    /// A SQLite database that lives in memory only (tests).
    case sqliteMemory
    case postgres(url: String)

    /// `sqlite:PATH`, `sqlite::memory:`, or `postgres://user[:password]@host[:port]/database`.
    public init(parsing text: String) throws(InvalidSetting) {
        if text == "sqlite::memory:" {
            self = .sqliteMemory
        } else if text.hasPrefix("sqlite:") {
            let path = String(text.dropFirst("sqlite:".count))
            guard !path.isEmpty else { throw .init(description: "the SQLite database URL needs a file path, as in sqlite:latchkey.sqlite") }
            self = .sqlite(path: path)
        } else if text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") {
            guard let url = URLComponents(string: text), url.host?.isEmpty == false, url.user?.isEmpty == false,
                  url.path.count > 1
            else { throw .init(description: "the PostgreSQL URL must look like postgres://user@host:port/database") }
            self = .postgres(url: text)
        } else {
            // At most the scheme is repeated: the rest of a URL may hold a password.
            let scheme = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let named = text.contains(":") && (1...20).contains(scheme.count)
                && scheme.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
            throw .init(description: "the database URL\(named ? " (\(scheme):…)" : "") is neither sqlite:PATH nor postgres://user@host:port/database")
        }
    }

    /// A database several instances can share.
    public var isPostgres: Bool {
        if case .postgres = self { return true }
        return false
    }

    /// The location without a password, for logs.
    public var description: String {
        switch self {
        case .sqlite(let path): return "sqlite:\(path)"
        case .sqliteMemory: return "sqlite::memory:"
        case .postgres(let url):
            guard var components = URLComponents(string: url) else { return "postgres" }
            if components.password != nil { components.password = "***" }
            return components.string ?? "postgres"
        }
    }
}
