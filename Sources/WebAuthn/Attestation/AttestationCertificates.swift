import CBOR
import SwiftASN1
import X509

/// Certificate handling that several attestation formats share: x5c parsing, signature checks with the
/// attestation certificate's key, and the FIDO AAGUID extension.
enum AttestationCertificates {
    /// id-fido-gen-ce-aaguid (FIDO Metadata / WebAuthn §8.2.1).
    static let aaguidExtensionOID: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 45724, 1, 1, 4]

    /// x5c: a non-empty array of DER certificates, attestation certificate first.
    /// Most certificates in one x5c: the longest real chain in the shared vectors has 5 (a TPM leaf and its
    /// intermediates). Each one is parsed, and with anchors each link's signature is checked.
    static let maximumChainLength = 8
    /// Largest single certificate (DER bytes); real attestation certificates are under 2 KiB.
    static let maximumCertificateSize = 8 * 1024

    /// x5c: a non-empty array of DER certificates, attestation certificate first.
    static func parseX5C(_ value: CBORValue, format: String) throws(WebAuthnError) -> [Certificate] {
        guard let items = value.arrayValue, !items.isEmpty else {
            throw WebAuthnError(.attestationStatementMalformed(format: format, reason: "x5c is not a non-empty array"))
        }
        guard items.count <= maximumChainLength else {
            throw WebAuthnError(.attestationStatementMalformed(
                format: format, reason: "x5c has \(items.count) certificates, more than the limit of \(maximumChainLength)"))
        }
        var certificates: [Certificate] = []
        for (index, item) in items.enumerated() {
            guard let der = item.bytesValue else {
                throw WebAuthnError(.attestationStatementMalformed(format: format, reason: "x5c[\(index)] is not a byte string"))
            }
            guard der.count <= maximumCertificateSize else {
                throw WebAuthnError(.attestationStatementMalformed(
                    format: format, reason: "x5c[\(index)] is \(der.count) bytes, over the limit of \(maximumCertificateSize)"))
            }
            do {
                certificates.append(try Certificate(derEncoded: der))
            } catch where index > 0 {
                // An intermediate the X.509 parser cannot read (real Windows TPM CAs carry such policy
                // extensions) is left out: it can only matter for chain validation, which then fails
                // unless the chain reaches an anchor without it.
                continue
            } catch {
                throw WebAuthnError(.attestationStatementMalformed(format: format, reason: "x5c[\(index)] is not a DER certificate"))
            }
        }
        return certificates
    }

    static func verifySignature(
        _ signature: [UInt8], over data: [UInt8], certificate: Certificate, algorithm: COSEAlgorithm, format: String
    ) throws(WebAuthnError) {
        guard algorithm.isVerifiable else { throw WebAuthnError(.unsupportedAlgorithm(algorithm.rawValue)) }
        guard let key = SignaturePublicKey(certificateKey: certificate.publicKey) else {
            throw WebAuthnError(.attestationCertificateInvalid(format: format, rule: "public key type is not supported"))
        }
        if let bits = key.oversizedRSABits {
            throw WebAuthnError(.attestationCertificateInvalid(
                format: format, rule: "the RSA key is \(bits) bits, over the \(SignaturePublicKey.maximumRSABits)-bit limit"))
        }
        guard key.fits(algorithm) else {
            throw WebAuthnError(.attestationStatementMalformed(
                format: format, reason: "alg \(algorithm.name) does not fit the attestation certificate's key"))
        }
        guard key.isValidSignature(signature, for: data, algorithm: algorithm) else {
            throw WebAuthnError(.attestationSignatureInvalid(format: format))
        }
    }

    /// The certificate's subject public key must be the credential public key (apple, android-key).
    static func requireSameKey(certificate: Certificate, credential: COSEKey, format: String) throws(WebAuthnError) {
        guard let certificateKey = SignaturePublicKey(certificateKey: certificate.publicKey), let credentialKey = credential.signingKey,
              certificateKey.canonicalBytes == credentialKey.canonicalBytes
        else {
            throw WebAuthnError(.attestationCertificateInvalid(format: format, rule: "the certificate's public key is not the credential public key"))
        }
    }

    /// When the certificate carries id-fido-gen-ce-aaguid, it must be non-critical and hold the
    /// authenticator data's AAGUID as an OCTET STRING.
    static func checkAAGUIDExtension(
        of certificate: Certificate, matches aaguid: [UInt8], format: String
    ) throws(WebAuthnError) {
        guard let ext = certificate.extensions[oid: aaguidExtensionOID] else { return }
        guard !ext.critical else {
            throw WebAuthnError(.attestationCertificateInvalid(format: format, rule: "AAGUID extension must not be critical"))
        }
        let octets: ASN1OctetString
        do {
            octets = try ASN1OctetString(derEncoded: ext.value)
        } catch {
            throw WebAuthnError(.attestationCertificateInvalid(format: format, rule: "AAGUID extension is not an OCTET STRING"))
        }
        guard Array(octets.bytes) == aaguid else { throw WebAuthnError(.attestationAAGUIDMismatch(format: format)) }
    }
}
