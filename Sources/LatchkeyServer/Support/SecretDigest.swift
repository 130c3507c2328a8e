import Crypto

/// What is stored of a secret that is only ever compared — session tokens, admin keys, recovery codes,
/// device requests' codes and secrets: the SHA-256 of its text. A copy of the database then opens nothing.
enum SecretDigest {
    static func of(_ text: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(text.utf8)))
    }
}
