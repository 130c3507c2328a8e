import Crypto
import Foundation
import WebAuthn

/// A bearer token: 32 random bytes, base64url. Only its SHA-256 is ever stored, so a copy of the
/// database does not let anyone sign in.
struct SessionToken: Sendable {
    let value: String

    static func generate() -> SessionToken {
        SessionToken(value: Base64URL.encode(RandomBytes.make(32)))
    }

    /// What the sessions table keys on.
    var hash: [UInt8] { Self.hash(of: value) }

    static func hash(of token: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(token.utf8)))
    }
}

/// Cryptographically secure random bytes (the system generator: getrandom on Linux), eight per call
/// to the generator rather than one, so a 64-byte user handle costs 8 system calls, not 64.
enum RandomBytes {
    static func make(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count + 7)
        while bytes.count < count {
            withUnsafeBytes(of: generator.next()) { bytes.append(contentsOf: $0) }
        }
        return Array(bytes.prefix(count))
    }
}
