import SwiftASN1
import X509

/// §8.2.1 Packed attestation statement certificate requirements, one named rule per check.
enum PackedCertificateRequirements {
    static func check(_ certificate: Certificate) throws(WebAuthnError) {
        func broken(_ rule: String) -> WebAuthnError {
            WebAuthnError(.attestationCertificateInvalid(format: PackedAttestation.identifier, rule: rule))
        }
        // Version MUST be set to 3 (which is indicated by an ASN.1 INTEGER with value 2).
        guard certificate.version == .v3 else { throw broken("version must be 3") }

        // Subject: C (ISO 3166 code), O (vendor), OU = "Authenticator Attestation", CN (vendor's choice).
        let subject = SubjectFields(certificate.subject)
        guard let country = subject.value(of: .RDNAttributeType.countryName), country.count == 2 else {
            throw broken("subject C must be a two-letter ISO 3166 country code")
        }
        guard let organization = subject.value(of: .RDNAttributeType.organizationName), !organization.isEmpty else {
            throw broken("subject O must name the authenticator vendor")
        }
        guard subject.value(of: .RDNAttributeType.organizationalUnitName) == "Authenticator Attestation" else {
            throw broken("subject OU must be \"Authenticator Attestation\"")
        }
        guard let commonName = subject.value(of: .RDNAttributeType.commonName), !commonName.isEmpty else {
            throw broken("subject CN must be present")
        }

        // The Basic Constraints extension MUST have the CA component set to false.
        guard let isCA = BasicConstraintsReader.isCertificateAuthority(certificate) else {
            throw broken("basic constraints extension is malformed")
        }
        if isCA { throw broken("basic constraints must have CA set to false") }
    }
}

/// Reads single-valued attributes of a distinguished name.
struct SubjectFields {
    let name: DistinguishedName

    init(_ name: DistinguishedName) { self.name = name }

    func value(of type: ASN1ObjectIdentifier) -> String? {
        for rdn in name {
            for attribute in rdn where attribute.type == type {
                return String(attribute.value)
            }
        }
        return nil
    }
}
