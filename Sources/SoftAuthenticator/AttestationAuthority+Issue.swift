import Crypto
import Foundation
import SwiftASN1
import WebAuthn
import X509

extension AttestationAuthority {
    /// A new root and attestation certificate meeting WebAuthn §8.2.1: version 3; subject C, O,
    /// OU "Authenticator Attestation" and CN; basic constraints CA false; the AAGUID extension.
    static func issue(aaguid: [UInt8], now: Date) throws -> AttestationAuthority {
        let rootKey = P256.Signing.PrivateKey()
        let attestationKey = P256.Signing.PrivateKey()
        let rootName = try DistinguishedName {
            CountryName("SE")
            OrganizationName("Latchkey")
            CommonName("Latchkey SoftAuthenticator Attestation Root \(UUID().uuidString.prefix(8))")
        }
        let subject = try DistinguishedName {
            CountryName("SE")
            OrganizationName("Latchkey")
            OrganizationalUnitName("Authenticator Attestation")
            CommonName("Latchkey SoftAuthenticator")
        }
        let notBefore = now - 86_400
        let notAfter = now + 86_400 * 365 * 20
        let root = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(rootKey.publicKey),
            notValidBefore: notBefore, notValidAfter: notAfter, issuer: rootName, subject: rootName,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true))
            },
            issuerPrivateKey: .init(rootKey))
        var aaguidValue = DER.Serializer()
        try aaguidValue.serialize(ASN1OctetString(contentBytes: ArraySlice(aaguid)))
        var extensions = try Certificate.Extensions {
            Critical(BasicConstraints.notCertificateAuthority)
        }
        // id-fido-gen-ce-aaguid, non-critical, the AAGUID as an OCTET STRING.
        try extensions.append(Certificate.Extension(
            oid: [1, 3, 6, 1, 4, 1, 45724, 1, 1, 4], critical: false, value: ArraySlice(aaguidValue.serializedBytes)))
        let attestation = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(attestationKey.publicKey),
            notValidBefore: notBefore, notValidAfter: notAfter, issuer: rootName, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: .init(rootKey))
        return AttestationAuthority(
            rootCertificate: Base64URL.encode(try der(root)), attestationCertificate: Base64URL.encode(try der(attestation)),
            attestationPrivateKey: Base64URL.encode(attestationKey.rawRepresentation))
    }

    private static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    /// The root certificate in PEM, for a relying party's trust anchors.
    public func rootPEM() throws(SoftAuthenticatorError) -> String {
        guard let der = Base64URL.decode(rootCertificate) else { throw .store("root certificate is not base64url") }
        return PEMDocument(type: "CERTIFICATE", derBytes: der).pemString
    }
}
