import CBOR
import X509

/// `packed` (§8.2): `{alg, sig, x5c?}`, signed over authenticatorData ‖ clientDataHash either by an
/// attestation key with a certificate (x5c) or by the credential key itself (self attestation).
struct PackedAttestation: AttestationStatementFormat {
    static let identifier = "packed"

    private func failure(_ reason: String) -> WebAuthnError {
        WebAuthnError(.attestationStatementMalformed(format: Self.identifier, reason: reason))
    }

    func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome {
        let statement = input.statement
        // ECDAA was removed in Level 3; a statement that still uses it cannot be verified.
        if statement[text: "ecdaaKeyId"] != nil {
            throw failure("ECDAA (ecdaaKeyId) is obsolete and not supported")
        }
        guard let algValue = statement[text: "alg"]?.int64Value, let algInt = Int(exactly: algValue) else {
            throw failure("alg is missing or not an integer")
        }
        guard let sig = statement[text: "sig"]?.bytesValue else { throw failure("sig is missing or not a byte string") }
        guard let alg = COSEAlgorithm(rawValue: algInt) else { throw WebAuthnError(.unsupportedAlgorithm(algInt)) }
        let signedData = input.authenticatorData.rawBytes + input.clientDataHash

        if let x5cValue = statement[text: "x5c"] {
            let chain = try AttestationCertificates.parseX5C(x5cValue, format: Self.identifier)
            let certificate = chain[0]
            // Verify that sig is a valid signature over authenticatorData ‖ clientDataHash using the
            // attestation public key in attestnCert with the algorithm specified in alg.
            try AttestationCertificates.verifySignature(
                sig, over: signedData, certificate: certificate, algorithm: alg, format: Self.identifier)
            // Verify that attestnCert meets the requirements in §8.2.1.
            try PackedCertificateRequirements.check(certificate)
            // If attestnCert contains the id-fido-gen-ce-aaguid extension, it must match the AAGUID in authenticatorData.
            try AttestationCertificates.checkAAGUIDExtension(
                of: certificate, matches: input.credential.aaguid, format: Self.identifier)
            return AttestationOutcome(type: .basic, trustPath: chain)
        }

        // Self attestation: alg must match the credential public key's algorithm.
        guard alg == input.credential.publicKey.algorithm else {
            throw failure("self attestation alg \(alg.rawValue) differs from the credential key's \(input.credential.publicKey.algorithm.rawValue)")
        }
        // Verify that sig is a valid signature over authenticatorData ‖ clientDataHash using the
        // credential public key with alg.
        guard try input.credential.publicKey.isValidSignature(sig, for: signedData) else {
            throw WebAuthnError(.attestationSignatureInvalid(format: Self.identifier))
        }
        return AttestationOutcome(type: .self, trustPath: [])
    }
}
