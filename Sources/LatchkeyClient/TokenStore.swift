import Foundation
import WebAuthn
#if canImport(Glibc)
import Glibc
#endif

/// Where the client keeps its session token, one per server.
public protocol TokenStore: Sendable {
    func token(for server: URL) throws -> String?
    func save(_ token: String, for server: URL) throws
    func remove(for server: URL) throws
}

/// Tokens in memory only.
public final class InMemoryTokenStore: TokenStore, @unchecked Sendable {
    private let lock = NSLock()
    private var tokens: [String: String] = [:]

    public init() {}

    public func token(for server: URL) -> String? { lock.withLock { tokens[server.absoluteString] } }
    public func save(_ token: String, for server: URL) { lock.withLock { tokens[server.absoluteString] = token } }
    public func remove(for server: URL) { lock.withLock { _ = tokens.removeValue(forKey: server.absoluteString) } }
}

/// Tokens in one JSON file readable only by its owner (0600), keyed by server URL, so that the command
/// line stays logged in between runs. Written atomically (temporary file, then rename).
public struct FileTokenStore: TokenStore {
    public let url: URL

    public init(url: URL) {
        self.url = url
    }

    /// `$LATCHKEY_TOKEN_STORE`, else `$XDG_CONFIG_HOME/latchkey/sessions.json`, else `~/.config/latchkey/sessions.json`.
    public static func defaultURL(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let path = environment["LATCHKEY_TOKEN_STORE"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let config: URL
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            config = URL(fileURLWithPath: xdg)
        } else {
            config = URL(fileURLWithPath: environment["HOME"] ?? NSHomeDirectory()).appendingPathComponent(".config")
        }
        return config.appendingPathComponent("latchkey/sessions.json")
    }

    private func load() throws -> [String: String] {
        guard FileManager.default.fileExists(atPath: url.path) else { return [:] }
        let data = try Data(contentsOf: url)
        guard (try? JSONValue.validate(data)) != nil, let tokens = try? JSONDecoder().decode([String: String].self, from: data) else {
            throw ClientError.invalidResponse("the session file \(url.path) is corrupt; delete it and log in again")
        }
        return tokens
    }

    private func write(_ tokens: [String: String]) throws {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        let data = try JSONEncoder().encode(tokens)
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw ClientError.invalidResponse("cannot write \(temporary.path)")
        }
        guard rename(temporary.path, url.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            throw ClientError.invalidResponse("cannot replace \(url.path)")
        }
    }

    public func token(for server: URL) throws -> String? { try load()[server.absoluteString] }

    public func save(_ token: String, for server: URL) throws {
        var tokens = try load()
        tokens[server.absoluteString] = token
        try write(tokens)
    }

    public func remove(for server: URL) throws {
        var tokens = try load()
        guard tokens.removeValue(forKey: server.absoluteString) != nil else { return }
        try write(tokens)
    }
}
