import WebAuthn

/// A look at a JWT's header before any key is chosen for it. JWTKit picks the key by `kid` and verifies
/// with that key's own algorithm, so a header claiming `none` or `HS256` (an HMAC keyed with a published
/// public key) can never verify; refusing every algorithm Latchkey does not sign with, before JWTKit
/// sees the token, makes that plain and cheap. The header is read by Latchkey's strict parser behind a
/// size gate (JWTs this server signs have headers of about 60 bytes).
enum JWTHeaderCheck {
    /// The header's `alg` when the token has three parts, a header of at most 512 bytes that parses as a
    /// JSON object, and a string `kid`; nil otherwise.
    static func algorithm(of token: String) -> String? {
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count <= 700, let header = Base64URL.decode(String(decoding: parts[0], as: UTF8.self)),
              header.count <= 512, let value = try? JSONValue.parse(header), case .object(let object) = value,
              case .string(let algorithm)? = object["alg"], case .string? = object["kid"]
        else { return nil }
        return algorithm
    }
}
