import Foundation
import FuzzSupport
import WebAuthn

/// §7.1 end to end from JSON: the bytes are a `RegistrationResponseJSON` as a client would post it,
/// read by the strict parser and the server's fast reader, then verified by `RegistrationVerifier`
/// against a fixed relying party. The expectations are those of the Yubico captures among the shared
/// vectors (RP ID `localhost`, origin `https://localhost`, one challenge for all, "now" inside their
/// certificates' validity), so those seeds pass the client data and RP ID checks and reach every
/// attestation format's statement and chain checks.
///
/// The Codable reader (what the client library and the CLI use) must read the same credential, for
/// documents without repeated member names (`hasDuplicateMembers`).
enum RegistrationFuzzTarget {
    static let relyingParty = RelyingParty(
        id: "localhost", name: "Fuzz", origins: ["https://localhost"], userVerification: .preferred,
        trustAnchors: FuzzAnchors.loaded)
    static let verifier = RegistrationVerifier(relyingParty: relyingParty)
    /// `expected_challenge` of the `yubico-reg-*` vectors.
    static let challenge = Base64URL.decode("AAEBAgMFCA0VIjdZEGl5Yls") ?? []
    /// 2018-09-06T17:42:00Z, their `verification_time`.
    static let now = Date(timeIntervalSince1970: 1_536_255_720)

    static func run(_ bytes: [UInt8]) {
        guard let document = try? JSONValue.parse(bytes), let reader = try? JSONShapeReader(document),
              let credential = try? RegistrationResponseJSON(json: reader)
        else { return }
        if !hasDuplicateMembers(document), let decoded = try? JSONDecoder().decode(RegistrationResponseJSON.self, from: Data(bytes)) {
            fuzzCheck(decoded == credential, "the Codable reader and the fast reader read different credentials")
        }
        let verifier = verifier
        let challenge = challenge
        let result = runBlocking { try? await verifier.verify(credential, expectedChallenge: challenge, verificationTime: now) }
        guard let result else { return }
        fuzzCheck(result.credentialId.count <= AuthenticatorData.maxCredentialIdLength, "accepted an over-long credential id")
        fuzzCheck((try? COSEKey(bytes: result.publicKey))?.algorithm == result.publicKeyAlgorithm, "the stored key does not parse to its algorithm")
        fuzzCheck(relyingParty.allowedAlgorithms.contains(result.publicKeyAlgorithm), "accepted an algorithm that was not offered")
    }
}
