import Crypto
import Foundation
import LatchkeyDatabase

/// Seals a `PendingCeremony` into the challenge itself (ChaCha20-Poly1305 under a 256-bit server key),
/// so that options cost no database write and an anonymous flood of them stores nothing (issue 12), and a
/// login commits once (issue 16). Any instance holding the key — it lives in the database, wrapped under the
/// key file's key (`ServerKeyVault`) — can open the
/// challenge of any other. Opening authenticates everything: a challenge that was not made here, was
/// changed in any bit, was made for another relying party ID or has expired opens to nil.
///
/// Single use is not the sealer's business: the ceremony that completes records the challenge's digest in
/// the same transaction as its writes (`Store.useChallenge`), and a second completion finds it there.
///
/// Layout: version (1) ‖ nonce (12) ‖ ciphertext ‖ tag (16). The plaintext: kind (1) ‖ expiry in ms
/// (8, big-endian) ‖ 16 random bytes ‖ account id, user handle, display name, each as a 2-byte length
/// (0xFFFF when absent) and its bytes. A login challenge is 60 bytes; WebAuthn asks for at least 16
/// random ones (§13.4.3): the nonce and the random field give 28.
struct ChallengeSealer: Sendable {
    static let version: UInt8 = 1
    static let keyByteCount = 32
    /// The key's row in `server_keys` (wrapped: `ServerKeyVault`).
    static let keyName = "challenge-seal"
    private static let absent: UInt16 = 0xFFFF

    private let key: SymmetricKey
    /// Bound into every seal as associated data: a challenge from one deployment (relying party ID) does
    /// not open in another that happens to share a key.
    private let context: Data

    init(key: [UInt8], rpId: String) throws {
        guard key.count == Self.keyByteCount else {
            throw ServerConfiguration.Invalid(description: "the challenge key must be \(Self.keyByteCount) bytes, not \(key.count)")
        }
        self.key = SymmetricKey(data: key)
        self.context = Data("latchkey challenge v1 \(rpId)".utf8)
    }

    func seal(_ ceremony: PendingCeremony) -> [UInt8] {
        var plain: [UInt8] = [ceremony.kind.rawValue]
        let milliseconds = UInt64(max(0, Timestamp.milliseconds(ceremony.expiresAt)))
        for shift in stride(from: 56, through: 0, by: -8) { plain.append(UInt8(truncatingIfNeeded: milliseconds >> UInt64(shift))) }
        // The nonce and the random field come from one request to the kernel (`RandomBytes`).
        let random = RandomBytes.make(12 + 16)
        plain += random[12...]
        Self.append(ceremony.accountId.map { Array($0.utf8) }, to: &plain)
        Self.append(ceremony.userHandle, to: &plain)
        Self.append(ceremony.displayName.map { Array($0.utf8) }, to: &plain)
        // A random 96-bit nonce per seal: at far fewer than 2^32 seals per key the chance of a repeat is
        // negligible. Sealing cannot fail for a valid key, a 12-byte nonce and these sizes; the nil case
        // is unreachable.
        guard let nonce = try? ChaChaPoly.Nonce(data: random[..<12]),
              let box = try? ChaChaPoly.seal(plain, using: key, nonce: nonce, authenticating: context)
        else { return [] }
        return [Self.version] + box.combined
    }

    /// The ceremony sealed in `challenge`, or nil when the challenge is not one of ours, is damaged, or
    /// expired at or before `now`.
    func open(_ challenge: [UInt8], now: Date) -> PendingCeremony? {
        guard challenge.count > 1 + 12 + 16, challenge[0] == Self.version,
              let box = try? ChaChaPoly.SealedBox(combined: challenge.dropFirst()),
              let plain = try? ChaChaPoly.open(box, using: key, authenticating: context)
        else { return nil }
        var reader = Reader(bytes: Array(plain))
        guard let kindByte = reader.take(1), let kind = PendingCeremony.Kind(rawValue: kindByte[0]),
              let expiry = reader.take(8), reader.take(16) != nil,
              let accountId = reader.textField(), let userHandle = reader.field(), let displayName = reader.textField(),
              reader.atEnd
        else { return nil }
        let milliseconds = expiry.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard milliseconds <= UInt64(Int64.max) else { return nil }
        let expiresAt = Timestamp.date(Int64(milliseconds))
        guard expiresAt > now else { return nil }
        return PendingCeremony(kind: kind, accountId: accountId, userHandle: userHandle, displayName: displayName, expiresAt: expiresAt)
    }

    /// The digest a completed ceremony records (`UsedChallenge`).
    static func digest(_ challenge: [UInt8]) -> [UInt8] { SHA256.hash(data: challenge).withUnsafeBytes { Array($0) } }

    private static func append(_ bytes: [UInt8]?, to plain: inout [UInt8]) {
        guard let bytes else {
            plain += [UInt8(absent >> 8), UInt8(absent & 0xFF)]
            return
        }
        // Every field is bounded well below 0xFFFF by the input rules (≤ 1 020 bytes) before it gets here.
        let count = UInt16(min(bytes.count, Int(absent) - 1))
        plain += [UInt8(count >> 8), UInt8(count & 0xFF)] + bytes.prefix(Int(count))
    }

    /// Reads the plaintext front to back; every read is bounds-checked.
    private struct Reader {
        let bytes: [UInt8]
        var offset = 0

        var atEnd: Bool { offset == bytes.count }

        mutating func take(_ count: Int) -> [UInt8]? {
            guard count <= bytes.count - offset else { return nil }
            defer { offset += count }
            return [UInt8](copying: bytes, from: offset, count: count)
        }

        /// A length-prefixed field: .some(nil) when marked absent, nil when the bytes run out.
        mutating func field() -> [UInt8]?? {
            guard bytes.count - offset >= 2 else { return nil }
            let count = UInt16(bytes[offset]) << 8 | UInt16(bytes[offset + 1])
            offset += 2
            if count == ChallengeSealer.absent { return .some(nil) }
            guard let value = take(Int(count)) else { return nil }
            return .some(value)
        }

        /// A length-prefixed UTF-8 field: .some(nil) when marked absent, nil when malformed.
        mutating func textField() -> String?? {
            guard let bytes = field() else { return nil }
            guard let bytes else { return .some(nil) }
            guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
            return .some(text)
        }
    }
}
