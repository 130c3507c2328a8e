import Crypto
import WebAuthn

/// The prf extension (WebAuthn L3 §10.1.4) as CTAP2's `hmac-secret` gives it, which is what platform
/// authenticators and security keys do underneath: a credential made with prf requested gets a random
/// 32-byte secret of its own, and evaluating it is HMAC-SHA256 under that secret of a salt the client
/// derives from the relying party's input, SHA-256("WebAuthn PRF" ‖ 0x00 ‖ input). The derivation keeps a
/// web page's inputs apart from what other users of hmac-secret ask. Same credential and input, same
/// output; another credential or input, an unrelated one.
public enum PRFEvaluation {
    /// The salt the client hands the authenticator for `input` (L3 §10.1.4, "client extension processing").
    public static func salt(for input: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(data: Array("WebAuthn PRF".utf8) + [0x00] + input))
    }

    /// The 32-byte output of the credential holding `secret` for the relying party's `input`.
    public static func output(secret: [UInt8], input: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: salt(for: input), using: SymmetricKey(data: secret)))
    }

    /// A new credential's secret: 32 random bytes, as hmac-secret's CredRandom.
    static func newSecret() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    /// The results for `values` (the salts as base64url) under `secret`: `second` only when asked.
    static func results(secret: [UInt8], for values: PRFValuesJSON) throws(SoftAuthenticatorError) -> PRFValuesJSON {
        guard let first = Base64URL.decode(values.first) else { throw .invalidOptions("prf input first is not base64url") }
        var second: [UInt8]?
        if let text = values.second {
            guard let bytes = Base64URL.decode(text) else { throw .invalidOptions("prf input second is not base64url") }
            second = bytes
        }
        return PRFValuesJSON(
            first: Base64URL.encode(output(secret: secret, input: first)),
            second: second.map { Base64URL.encode(output(secret: secret, input: $0)) })
    }
}
