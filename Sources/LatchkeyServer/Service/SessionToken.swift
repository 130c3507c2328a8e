import Crypto
import Foundation
import WebAuthn

/// A bearer token: 32 random bytes, base64url. Only its SHA-256 is ever stored, so a copy of the
/// database does not let anyone sign in.
struct SessionToken: Sendable {
    let value: String

    static func generate() -> SessionToken {
        var generator = SystemRandomNumberGenerator()
        return SessionToken(value: Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }))
    }

    /// What the sessions table keys on.
    var hash: [UInt8] { Self.hash(of: value) }

    static func hash(of token: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(token.utf8)))
    }
}

enum RandomBytes {
    static func make(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }
}
