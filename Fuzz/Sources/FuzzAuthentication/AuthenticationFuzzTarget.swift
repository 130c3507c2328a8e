import Foundation
import FuzzSupport
import WebAuthn

/// §7.2 end to end from JSON: the bytes are an `AuthenticationResponseJSON` as a client would post it,
/// read by the strict parser and the server's fast reader, then verified by `AuthenticationVerifier`
/// against a fixed relying party and credential record: those of the SimpleWebAuthn ES256 captures
/// among the shared vectors (`swa-auth-es256`: RP ID `dev.dontneeda.pw`, its challenge, its stored key
/// and counter 143), so those seeds reach the signature and counter steps.
///
/// The Codable reader (what the client library and the CLI use) must read the same credential, for
/// documents without repeated member names (`hasDuplicateMembers`).
enum AuthenticationFuzzTarget {
    static let relyingParty = RelyingParty(
        id: "dev.dontneeda.pw", name: "Fuzz", origins: ["https://dev.dontneeda.pw"], userVerification: .preferred,
        signCountPolicy: .report)
    static let verifier = AuthenticationVerifier(relyingParty: relyingParty)
    static let challenge = Base64URL.decode("dG90YWxseVVuaXF1ZVZhbHVlRXZlcnlUaW1l") ?? []
    static let record: StoredCredential? = try? StoredCredential(
        id: Base64URL.decode("KEbWNCc7NgaYnUyrNeFGX9_3Y-8oJ3KwzjnaiD1d1LVTxR7v3CaKfCz2Vy_g_MHSh7yJ8yL0Pxg6jo_o0hYiew") ?? [],
        publicKeyCOSE: Base64URL.decode(
            "pQECAyYgASFYIIheFp-u6GvFT2LNGovf3ZrT0iFVBsA_76rRysxRG9A1Ilgg8WGeA6hPmnab0HAViUYVRkwTNcN77QBf_RR0dv3lIvQ") ?? [],
        signCount: 143)

    static func run(_ bytes: [UInt8]) {
        guard let record else {
            fuzzCheck(false, "the fixed credential record does not parse")
            return
        }
        guard let document = try? JSONValue.parse(bytes), let reader = try? JSONShapeReader(document),
              let credential = try? AuthenticationResponseJSON(json: reader)
        else { return }
        if !hasDuplicateMembers(document), let decoded = try? JSONDecoder().decode(AuthenticationResponseJSON.self, from: Data(bytes)) {
            fuzzCheck(decoded == credential, "the Codable reader and the fast reader read different credentials")
        }
        guard let result = try? verifier.verify(credential, expectedChallenge: challenge, storedCredential: record) else { return }
        fuzzCheck(result.credentialId == record.id, "accepted an assertion for another credential")
        fuzzCheck(result.signCount >= record.signCount, "the counter went back")
        fuzzCheck(result.possibleClone || result.signCount > record.signCount || record.signCount == 0, "a counter that did not grow was not reported")
    }
}
