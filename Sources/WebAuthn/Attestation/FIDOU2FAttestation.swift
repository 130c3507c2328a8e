import CBOR
import Crypto

/// `fido-u2f` (§8.6): a U2F authenticator's registration signature, over the U2F message layout, by the
/// single attestation certificate in x5c. Only P-256 keys exist in U2F.
struct FIDOU2FAttestation: AttestationStatementFormat {
    static let identifier = "fido-u2f"

    private func malformed(_ reason: String) -> WebAuthnError {
        WebAuthnError(.attestationStatementMalformed(format: Self.identifier, reason: reason))
    }

    func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome {
        // Verify that attStmt is valid CBOR with x5c (exactly one certificate) and sig.
        guard let sig = input.statement[text: "sig"]?.bytesValue else { throw malformed("sig is missing or not a byte string") }
        guard let x5cValue = input.statement[text: "x5c"] else { throw malformed("x5c is missing") }
        let chain = try AttestationCertificates.parseX5C(x5cValue, format: Self.identifier)
        guard chain.count == 1 else { throw malformed("x5c must hold exactly one certificate, not \(chain.count)") }
        let certificate = chain[0]
        // The attestation certificate's public key must be an EC key on P-256.
        guard case .p256? = SignaturePublicKey(certificateKey: certificate.publicKey) else {
            throw WebAuthnError(.attestationCertificateInvalid(format: Self.identifier, rule: "the attestation key must be EC P-256"))
        }
        // The credential public key must be EC2 P-256 (ES256); publicKeyU2F = 0x04 ‖ x ‖ y.
        guard case .p256(let credentialKey)? = input.credential.publicKey.signingKey else {
            throw malformed("a U2F credential key must be EC2 P-256")
        }
        let publicKeyU2F = Array(credentialKey.x963Representation)
        // verificationData = 0x00 ‖ rpIdHash ‖ clientDataHash ‖ credentialId ‖ publicKeyU2F.
        let verificationData = [0x00] + input.authenticatorData.rpIdHash + input.clientDataHash
            + input.credential.credentialId + publicKeyU2F
        try AttestationCertificates.verifySignature(
            sig, over: verificationData, certificate: certificate, algorithm: .es256, format: Self.identifier)
        return AttestationOutcome(type: .basic, trustPath: chain)
    }
}
