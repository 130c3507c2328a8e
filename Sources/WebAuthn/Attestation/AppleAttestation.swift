import CBOR
import Crypto
import SwiftASN1
import X509

/// `apple` (§8.8): Apple's anonymous attestation. There is no signature; the per-credential certificate
/// binds the ceremony through a nonce extension and carries the credential's own public key.
struct AppleAttestation: AttestationStatementFormat {
    static let identifier = "apple"
    /// Apple's nonce extension (1.2.840.113635.100.8.2).
    static let nonceExtension: ASN1ObjectIdentifier = [1, 2, 840, 113635, 100, 8, 2]

    func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome {
        guard let x5cValue = input.statement[text: "x5c"] else {
            throw WebAuthnError(.attestationStatementMalformed(format: Self.identifier, reason: "x5c is missing"))
        }
        let chain = try AttestationCertificates.parseX5C(x5cValue, format: Self.identifier)
        let credCert = chain[0]
        // nonce = SHA-256(authenticatorData ‖ clientDataHash).
        let nonce = Array(SHA256.hash(data: input.authenticatorData.rawBytes + input.clientDataHash))
        // The nonce extension holds SEQUENCE { [1] EXPLICIT OCTET STRING nonce }.
        guard let ext = credCert.extensions[oid: Self.nonceExtension] else {
            throw WebAuthnError(.attestationCertificateInvalid(format: Self.identifier, rule: "the nonce extension 1.2.840.113635.100.8.2 is missing"))
        }
        guard let certified = Self.nonce(in: ext.value) else {
            throw WebAuthnError(.attestationCertificateInvalid(format: Self.identifier, rule: "the nonce extension is malformed"))
        }
        guard ConstantTime.equal(certified, nonce) else {
            throw WebAuthnError(.attestationCertificateInvalid(
                format: Self.identifier, rule: "the nonce extension does not equal SHA-256(authenticatorData ‖ clientDataHash)"))
        }
        // The credential public key equals the subject public key of credCert.
        try AttestationCertificates.requireSameKey(certificate: credCert, credential: input.credential.publicKey, format: Self.identifier)
        return AttestationOutcome(type: .anonCA, trustPath: chain)
    }

    static func nonce(in value: ArraySlice<UInt8>) -> [UInt8]? {
        guard let root = try? BER.parse(Array(value)), root.identifier == .sequence, case .constructed(let children) = root.content else {
            return nil
        }
        for child in children where child.identifier.tagClass == .contextSpecific && child.identifier.tagNumber == 1 {
            guard case .constructed(let inner) = child.content, let octets = inner.first(where: { _ in true }),
                  let string = try? ASN1OctetString(derEncoded: octets)
            else { return nil }
            return Array(string.bytes)
        }
        return nil
    }
}
