import Crypto
import Foundation

/// The server's secret keys — the challenge-sealing key and the access-token signing keys — as the
/// database keeps them: each wrapped (ChaCha20-Poly1305) under the key-encryption key from `KeyFile`,
/// with its row's name bound in as associated data so that one row's blob cannot stand in for another's.
/// Before, they sat in `server_keys` as raw bytes next to the sessions they protect, and a read-only copy
/// of the database was enough to mint access tokens that introspection called active (third review,
/// finding 4).
///
/// A key stored raw by an earlier version is wrapped in place the first time it is read, so upgrading
/// keeps every token and challenge valid. A wrapped key that does not open means this instance was given
/// another key file than the one that wrapped it: that is refused with a sentence, never papered over
/// with a new key (the instances of a cluster would then sign with different keys).
struct ServerKeyVault: Sendable {
    static let version: UInt8 = 1
    private let store: Store
    private let key: SymmetricKey
    /// Where the key came from, for the sentence when it does not fit.
    private let source: String

    init(store: Store, key: SymmetricKey, source: String) {
        self.store = store
        self.key = key
        self.source = source
    }

    /// The key called `name`, `byteCount` random bytes made by whichever instance asks first.
    func key(named name: String, byteCount: Int) async throws -> [UInt8] {
        let stored = try await store.serverKey(named: name, make: { wrap(RandomBytes.make(byteCount), name: name) })
        if stored.count == byteCount {
            // Raw, from before keys were wrapped: wrap it where it lies (only if no one else did meanwhile).
            try await store.replaceServerKey(named: name, secret: wrap(stored, name: name), ifStill: stored)
            return stored
        }
        guard let plain = unwrap(stored, name: name), plain.count == byteCount else {
            throw ServerConfiguration.Invalid(description: """
                the server key \(name) in the database was not wrapped with the key in \(source): every instance on one database \
                needs the same key file (--key-file); if the old one is lost, run latchkey keys rotate
                """)
        }
        return plain
    }

    /// The key called `name` that `make` makes (an RSA key's DER): made only when the database has none,
    /// because making one is costly; concurrent makers agree on the first one stored.
    func key(named name: String, make: @Sendable () -> [UInt8]) async throws -> [UInt8] {
        let stored: [UInt8]
        if let existing = try await store.existingServerKey(named: name) {
            stored = existing
        } else {
            stored = try await store.serverKey(named: name, make: { wrap(make(), name: name) })
        }
        guard let plain = unwrap(stored, name: name), !plain.isEmpty else {
            throw ServerConfiguration.Invalid(description: """
                the server key \(name) in the database was not wrapped with the key in \(source): every instance on one database \
                needs the same key file (--key-file); if the old one is lost, run latchkey keys rotate
                """)
        }
        return plain
    }

    func wrap(_ secret: [UInt8], name: String) -> [UInt8] {
        // Sealing cannot fail for a 32-byte key and a fresh nonce; the empty result is unreachable and
        // would be refused by `unwrap` on the next read.
        guard let box = try? ChaChaPoly.seal(secret, using: key, nonce: ChaChaPoly.Nonce(), authenticating: Self.context(name)) else { return [] }
        return [Self.version] + box.combined
    }

    func unwrap(_ blob: [UInt8], name: String) -> [UInt8]? {
        guard blob.count > 1 + 12 + 16, blob[0] == Self.version,
              let box = try? ChaChaPoly.SealedBox(combined: blob.dropFirst()),
              let plain = try? ChaChaPoly.open(box, using: key, authenticating: Self.context(name))
        else { return nil }
        return Array(plain)
    }

    private static func context(_ name: String) -> Data { Data("latchkey server key v1 \(name)".utf8) }
}
