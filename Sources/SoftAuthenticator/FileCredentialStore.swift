import Foundation
import WebAuthn
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The credentials in one JSON file, readable only by its owner (0600), replaced atomically on every
/// save: the new state is written to a temporary file in the same directory, flushed to disk, and
/// renamed over the old one, so a crash leaves either the old file or the new one, never half of one.
///
/// A file that exists but is not a Latchkey authenticator store (corrupt, or someone else's JSON) is an
/// error, never silently replaced: it may hold the only copy of someone's keys.
public struct FileCredentialStore: CredentialStore {
    public let url: URL
    /// Called between writing the temporary file and renaming it; the crash-safety test uses it to stop
    /// the process at the worst moment. Nil in normal use.
    let beforeRename: (@Sendable () -> Void)?

    static let formatName = "latchkey-authenticator-store"
    static let formatVersion = 1

    private struct FileContents: Codable {
        var format: String
        var version: Int
        var state: AuthenticatorState
    }

    public init(url: URL) {
        self.init(url: url, beforeRename: nil)
    }

    /// Fault injection for the crash-safety test: `beforeRename` runs after the new state is on disk in
    /// the temporary file and before it replaces the store.
    public init(url: URL, beforeRename: (@Sendable () -> Void)?) {
        self.url = url
        self.beforeRename = beforeRename
    }

    /// `$LATCHKEY_AUTHENTICATOR_STORE`, else `$XDG_CONFIG_HOME/latchkey/authenticator.json`, else
    /// `~/.config/latchkey/authenticator.json`.
    public static func defaultURL(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let path = environment["LATCHKEY_AUTHENTICATOR_STORE"], !path.isEmpty { return URL(fileURLWithPath: path) }
        let config: URL
        if let xdg = environment["XDG_CONFIG_HOME"], xdg.hasPrefix("/") {
            config = URL(fileURLWithPath: xdg)
        } else {
            let home = environment["HOME"].map { URL(fileURLWithPath: $0) } ?? FileManager.default.homeDirectoryForCurrentUser
            config = home.appendingPathComponent(".config")
        }
        return config.appendingPathComponent("latchkey/authenticator.json")
    }

    public func load() throws(SoftAuthenticatorError) -> AuthenticatorState {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch CocoaError.fileReadNoSuchFile {
            return AuthenticatorState()
        } catch {
            if !FileManager.default.fileExists(atPath: url.path) { return AuthenticatorState() }
            throw .store("cannot read \(url.path): \(error.localizedDescription)")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard (try? JSONValue.validate(data)) != nil, let contents = try? decoder.decode(FileContents.self, from: data),
              contents.format == Self.formatName
        else {
            throw .store("\(url.path) is not a Latchkey authenticator store (corrupt or foreign file); it was left untouched")
        }
        guard contents.version == Self.formatVersion else {
            throw .store("\(url.path) has store version \(contents.version); this Latchkey reads version \(Self.formatVersion)")
        }
        return contents.state
    }

    public func save(_ state: AuthenticatorState) throws(SoftAuthenticatorError) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data: Data
        do {
            data = try encoder.encode(FileContents(format: Self.formatName, version: Self.formatVersion, state: state))
        } catch {
            throw .store("cannot encode the credentials: \(error)")
        }
        let directory = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .store("cannot create \(directory.path): \(error.localizedDescription)")
        }
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp")
        try write(data, to: temporary)
        beforeRename?()
        guard rename(temporary.path, url.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary.path)
            throw .store("cannot replace \(url.path): \(reason)")
        }
    }

    /// Creates `path` new with mode 0600 (never following or reusing an existing file), writes all of
    /// `data` and flushes it to disk.
    private func write(_ data: Data, to file: URL) throws(SoftAuthenticatorError) {
        let fd = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw .store("cannot create \(file.path): \(String(cString: strerror(errno)))") }
        var failure: String?
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: false)
        do {
            try handle.write(contentsOf: data)
        } catch {
            failure = error.localizedDescription
        }
        if failure == nil, fsync(fd) != 0 { failure = String(cString: strerror(errno)) }
        close(fd)
        if let failure {
            unlink(file.path)
            throw .store("cannot write \(file.path): \(failure)")
        }
    }
}
