import JWTKit
import LatchkeyAPI
import WebAuthn

/// Whether a client's registered keys are usable: what `latchkey admin clients` and the configuration's
/// `[[oidc-client]]` tables both check before a client with keys is stored.
enum OIDCClientKeysCheck {
    /// Keys `OIDCClientRules.jwks` accepted must also be keys JWTKit can verify with (an EC point on its
    /// curve, an RSA modulus …), or every assertion would be refused later with no word why.
    static func loadable(_ jwks: String?) async throws {
        guard let jwks else { return }
        let refusal = APIError(.jwksInvalid, "The client's keys (jwks, --jwks-file) are not public keys JWTKit can verify signatures with.")
        let keys = JWTKeyCollection.gated()
        guard (try? await keys.add(jwksJSON: jwks)) != nil, let value = try? JSONValue.parse(Array(jwks.utf8)),
              case .object(let document) = value, case .array(let list)? = document["keys"]
        else { throw refusal }
        // JWTKit reads a key's numbers only when it first verifies with it: read each now, with the
        // algorithm it would be used with.
        for case .object(let key) in list {
            guard case .string(let kid)? = key["kid"], let algorithm = Self.algorithm(of: key),
                  (try? await keys.getKey(for: JWKIdentifier(string: kid), alg: algorithm)) != nil
            else { throw refusal }
        }
    }

    /// A key's `alg`, or the one its type implies.
    private static func algorithm(of key: JSONObject) -> String? {
        if case .string(let algorithm)? = key["alg"] { return algorithm }
        switch (key["kty"], key["crv"]) {
        case (.string("EC")?, .string("P-256")?): return "ES256"
        case (.string("EC")?, .string("P-384")?): return "ES384"
        case (.string("RSA")?, _): return "RS256"
        case (.string("OKP")?, _): return "EdDSA"
        default: return nil
        }
    }
}
