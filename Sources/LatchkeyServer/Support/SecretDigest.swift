import Crypto

/// What is stored of a secret that is only ever compared — session tokens, admin keys, recovery codes,
/// device requests' codes and secrets: the SHA-256 of its text. A copy of the database then opens nothing.
enum SecretDigest {
    static func of(_ text: String) -> [UInt8] {
        // Through the digest's buffer: `Array(digest)` iterates it byte by byte, allocating in a debug build.
        SHA256.hash(data: Array(text.utf8)).withUnsafeBytes { Array($0) }
    }
}
