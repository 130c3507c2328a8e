import CBOR
import Crypto
import SwiftASN1
import X509

/// `tpm` (§8.3): a key certified by a TPM. The AIK (attestation identity key) signs a TPMS_ATTEST
/// (`certInfo`) that names the credential key's public area (`pubArea`) and carries the hash of
/// authenticatorData ‖ clientDataHash; the AIK certificate must meet §8.3.1.
struct TPMAttestationFormat: AttestationStatementFormat {
    static let identifier = "tpm"

    private func malformed(_ reason: String) -> WebAuthnError {
        WebAuthnError(.attestationStatementMalformed(format: Self.identifier, reason: reason))
    }

    func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome {
        let statement = input.statement
        if statement[text: "ecdaaKeyId"] != nil { throw malformed("ECDAA (ecdaaKeyId) is obsolete and not supported") }
        guard statement[text: "ver"]?.textValue == "2.0" else { throw malformed("ver must be \"2.0\"") }
        guard let algValue = statement[text: "alg"]?.int64Value, let alg = COSEAlgorithm(rawValue: Int(clamping: algValue)) else {
            throw malformed("alg is missing or not a known COSE algorithm")
        }
        guard let sig = statement[text: "sig"]?.bytesValue else { throw malformed("sig is missing") }
        guard let certInfoBytes = statement[text: "certInfo"]?.bytesValue else { throw malformed("certInfo is missing") }
        guard let pubAreaBytes = statement[text: "pubArea"]?.bytesValue else { throw malformed("pubArea is missing") }
        guard let x5cValue = statement[text: "x5c"] else { throw malformed("x5c is missing") }
        let chain = try AttestationCertificates.parseX5C(x5cValue, format: Self.identifier)

        // The public key in pubArea is the credential public key.
        let pubArea: TPMPublicArea
        do { pubArea = try TPMPublicArea(pubAreaBytes) } catch { throw malformed("pubArea is not a TPMT_PUBLIC") }
        try Self.requireMatch(pubArea, input.credential.publicKey)

        // certInfo: magic TPM_GENERATED_VALUE, type TPM_ST_ATTEST_CERTIFY.
        let certInfo: TPMAttestation
        do { certInfo = try TPMAttestation(certInfoBytes) } catch { throw malformed("certInfo is not a TPMS_ATTEST") }
        guard certInfo.magic == TPMAttestation.generatedValue else { throw malformed("certInfo magic is not TPM_GENERATED_VALUE") }
        guard certInfo.type == TPMAttestation.attestCertify else { throw malformed("certInfo type is not TPM_ST_ATTEST_CERTIFY") }
        // extraData is the hash of attToBeSigned (authenticatorData ‖ clientDataHash) with alg's hash.
        let attToBeSigned = input.authenticatorData.rawBytes + input.clientDataHash
        guard let expectedExtraData = Self.digest(attToBeSigned, for: alg), ConstantTime.equal(certInfo.extraData, expectedExtraData) else {
            throw malformed("certInfo extraData is not the hash of authenticatorData ‖ clientDataHash")
        }
        // attested.name is nameAlg ‖ hash of pubArea with nameAlg.
        guard let nameDigest = Self.digest(pubAreaBytes, nameAlg: pubArea.nameAlg),
              ConstantTime.equal(certInfo.attestedName, [UInt8(pubArea.nameAlg >> 8), UInt8(pubArea.nameAlg & 0xff)] + nameDigest)
        else { throw malformed("certInfo attested name is not the name of pubArea") }

        // sig is a valid signature over certInfo with the AIK certificate's key and alg.
        let aikCert = chain[0]
        try AttestationCertificates.verifySignature(sig, over: certInfoBytes, certificate: aikCert, algorithm: alg, format: Self.identifier)
        // §8.3.1 AIK certificate requirements, and the AAGUID extension if present.
        try TPMCertificateRequirements.check(aikCert)
        try AttestationCertificates.checkAAGUIDExtension(of: aikCert, matches: input.credential.aaguid, format: Self.identifier)
        return AttestationOutcome(type: .attCA, trustPath: chain)
    }

    private static func requireMatch(_ pubArea: TPMPublicArea, _ key: COSEKey) throws(WebAuthnError) {
        let matches: Bool
        switch (pubArea.parameters, key.material) {
        case (.rsa(_, let exponent, let modulus), .rsa(let n, let e)):
            let pubExponent = exponent == 0 ? 65537 : exponent
            let coseExponent = e.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            matches = Self.stripped(modulus) == Self.stripped(n) && e.count <= 8 && UInt64(pubExponent) == coseExponent
        case (.ecc(let curve, let x, let y), .ec2(let crv, let cx, let cy)):
            let curves: [UInt16: Int64] = [0x0003: 1, 0x0004: 2, 0x0005: 3]
            matches = curves[curve] == crv && Self.stripped(x) == Self.stripped(cx) && Self.stripped(y) == Self.stripped(cy)
        default:
            matches = false
        }
        guard matches else {
            throw WebAuthnError(.attestationStatementMalformed(format: identifier, reason: "pubArea's key is not the credential public key"))
        }
    }

    /// Integers compared without leading zero bytes (TPMs and COSE encoders differ on padding).
    private static func stripped(_ bytes: [UInt8]) -> ArraySlice<UInt8> {
        bytes.drop(while: { $0 == 0 })
    }

    static func digest(_ data: [UInt8], for alg: COSEAlgorithm) -> [UInt8]? {
        switch alg {
        case .es256, .rs256, .ps256: Array(SHA256.hash(data: data))
        case .es384, .rs384, .ps384: Array(SHA384.hash(data: data))
        case .es512, .rs512, .ps512: Array(SHA512.hash(data: data))
        case .rs1: Array(Insecure.SHA1.hash(data: data))
        default: nil
        }
    }

    static func digest(_ data: [UInt8], nameAlg: UInt16) -> [UInt8]? {
        switch nameAlg {
        case TPMAlgorithm.sha1: Array(Insecure.SHA1.hash(data: data))
        case TPMAlgorithm.sha256: Array(SHA256.hash(data: data))
        case TPMAlgorithm.sha384: Array(SHA384.hash(data: data))
        case TPMAlgorithm.sha512: Array(SHA512.hash(data: data))
        default: nil
        }
    }
}

/// §8.3.1 TPM attestation (AIK) certificate requirements, one rule per check.
enum TPMCertificateRequirements {
    static let manufacturerOID: ASN1ObjectIdentifier = [2, 23, 133, 2, 1]
    static let modelOID: ASN1ObjectIdentifier = [2, 23, 133, 2, 2]
    static let versionOID: ASN1ObjectIdentifier = [2, 23, 133, 2, 3]
    static let aikCertificateEKU: ASN1ObjectIdentifier = [2, 23, 133, 8, 3]

    static func check(_ certificate: Certificate) throws(WebAuthnError) {
        func broken(_ rule: String) -> WebAuthnError {
            WebAuthnError(.attestationCertificateInvalid(format: TPMAttestationFormat.identifier, rule: rule))
        }
        // Version MUST be set to 3.
        guard certificate.version == .v3 else { throw broken("version must be 3") }
        // Subject field MUST be set to empty.
        guard certificate.subject.isEmpty else { throw broken("the subject must be empty") }
        // The Subject Alternative Name extension holds the TPM manufacturer, model and version.
        guard let san = certificate.extensions[oid: .X509ExtensionID.subjectAlternativeName] else {
            throw broken("the subject alternative name extension is missing")
        }
        // Read as a tree walk over BER: real TPM certificates encode the directory name in more than one
        // way (one RDN per attribute, or one RDN holding all three).
        let attributes = objectIdentifiers(in: Array(san.value))
        for (oid, name) in [(manufacturerOID, "manufacturer"), (modelOID, "model"), (versionOID, "version")] where !attributes.contains(oid) {
            throw broken("the subject alternative name has no TPM \(name) (\(oid))")
        }
        // The Extended Key Usage extension MUST contain tcg-kp-AIKCertificate (2.23.133.8.3).
        guard let eku = certificate.extensions[oid: .X509ExtensionID.extendedKeyUsage] else {
            throw broken("the extended key usage extension is missing")
        }
        guard objectIdentifiers(in: Array(eku.value)).contains(aikCertificateEKU) else {
            throw broken("the extended key usage does not contain tcg-kp-AIKCertificate (2.23.133.8.3)")
        }
        // The Basic Constraints extension MUST have the CA component set to false.
        guard let isCA = BasicConstraintsReader.isCertificateAuthority(certificate) else { throw broken("basic constraints are malformed") }
        if isCA { throw broken("basic constraints must have CA set to false") }
    }

    /// All OBJECT IDENTIFIERs anywhere in a BER tree.
    static func objectIdentifiers(in der: [UInt8]) -> Set<ASN1ObjectIdentifier> {
        guard let root = try? BER.parse(der) else { return [] }
        var found: Set<ASN1ObjectIdentifier> = []
        func walk(_ node: ASN1Node, depth: Int) {
            guard depth < 12 else { return }
            switch node.content {
            case .constructed(let children):
                for child in children { walk(child, depth: depth + 1) }
            case .primitive:
                if node.identifier == .objectIdentifier, let oid = try? ASN1ObjectIdentifier(derEncoded: node) { found.insert(oid) }
            }
        }
        walk(root, depth: 0)
        return found
    }
}
