import Crypto
import Foundation
import LatchkeyRuntime

/// The key-encryption key: 32 random bytes kept in a file outside the database, which wraps every
/// secret key the database holds (`ServerKeyVault`). A copy of the database alone — a backup, a replica,
/// a stolen disk image of the database volume — then cannot sign access tokens or open challenges
/// (third review, finding 4).
///
/// The file holds the key as one line of base64 (so it can be pasted into a secret store) and must be
/// readable by its owner only. It is created on first start when absent, with mode 600, written to a
/// temporary name and linked into place, so instances that start together all read the one that won.
/// Every instance on one database must be given the same file.
enum KeyFile {
    static let byteCount = 32

    /// The key in the file at `path`, made first if there is none.
    static func loadOrCreate(at path: String) throws(ServerConfiguration.Invalid) -> SymmetricKey {
        if !FileManager.default.fileExists(atPath: path) { try create(at: path) }
        return try load(from: path)
    }

    static func load(from path: String) throws(ServerConfiguration.Invalid) -> SymmetricKey {
        var status = stat()
        guard stat(path, &status) == 0 else { throw .init(description: "the key file \(path) cannot be read") }
        if let refusal = OwnerOnlyFile.openToOthers("the key file", at: path) { throw refusal }
        guard status.st_size <= 1024, let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw .init(description: "the key file \(path) cannot be read")
        }
        guard let bytes = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)), bytes.count == byteCount else {
            throw .init(description: "the key file \(path) does not hold a key (one line of base64, \(byteCount) bytes)")
        }
        return SymmetricKey(data: bytes)
    }

    /// Writes a new key to `path` unless a file is already there (then the existing one is kept).
    static func create(at path: String) throws(ServerConfiguration.Invalid) {
        try write(RandomBytes.make(byteCount), to: path, replacing: false)
    }

    /// Writes `key` to `path` with mode 600: linked into place when `replacing` is false (an existing
    /// file wins), renamed over it when true.
    static func write(_ key: [UInt8], to path: String, replacing: Bool) throws(ServerConfiguration.Invalid) {
        let temporary = path + ".\(ProcessInfo.processInfo.processIdentifier).\(UInt32.random(in: 0...UInt32.max)).tmp"
        let line = Array((Data(key).base64EncodedString() + "\n").utf8)
        let fd = OwnerOnlyFile.createDescriptor(at: temporary)
        guard fd >= 0 else { throw .init(description: "the key file \(path) cannot be created (\(String(cString: strerror(errno))))") }
        let written = line.withUnsafeBytes { Foundation.write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        close(fd)
        defer { unlink(temporary) }
        guard written == line.count, synced else { throw .init(description: "the key file \(path) cannot be written") }
        if replacing {
            guard rename(temporary, path) == 0 else { throw .init(description: "the key file \(path) cannot be replaced (\(String(cString: strerror(errno))))") }
        } else if link(temporary, path) != 0, errno != EEXIST {
            throw .init(description: "the key file \(path) cannot be created (\(String(cString: strerror(errno))))")
        }
    }
}
