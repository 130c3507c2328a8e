import Crypto
import WebAuthn

/// The `sid` of Latchkey's id_tokens and logout tokens (Back-Channel Logout 1.0 §2.1, §2.4): one stable
/// id per browser session, so a relying party can tie its own session to the one on Latchkey and end
/// exactly that when told to. It is derived from the session's stored digest (SHA-256 of its token),
/// hashed again under a label: the same session always has the same `sid`, two sessions never share
/// one, and neither the token nor the digest a request is authenticated by can be recovered from it.
enum OIDCSessionID {
    /// The `sid` of the session whose token hashes to `sessionHash`: 16 bytes as 22 characters of base64url.
    static func of(sessionHash: [UInt8]) -> String {
        var input = Array("latchkey oidc sid\u{0}".utf8)
        input.append(contentsOf: sessionHash)
        return Base64URL.encode(Array(SHA256.hash(data: input).prefix(16)))
    }
}
