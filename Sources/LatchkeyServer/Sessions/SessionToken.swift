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

    /// A restricted session's token carries its kind in its text, so that `RecoveryGate` can hold it to
    /// the add-passkey routes before any look-up.
    static let recoveryPrefix = "rcv_"

    static func generateRecovery() -> SessionToken {
        SessionToken(value: recoveryPrefix + Base64URL.encode(RandomBytes.make(32)))
    }

    /// What the sessions table keys on.
    var hash: [UInt8] { Self.hash(of: value) }

    static func hash(of token: String) -> [UInt8] {
        SecretDigest.of(token)
    }
}
