import CBOR
import Crypto
import Foundation
import SwiftASN1
import WebAuthn
import X509

/// Builds WebAuthn responses from keys held by the test, with every part adjustable, so that each
/// verification step can be shown to fail on exactly the input that breaks it. (The vectors are the
/// check against real authenticators; this is the check that every rule is enforced.)
struct Fabricator {
    var rpId = "example.com"
    var origin = "https://example.com"
    var challenge: [UInt8] = (0..<32).map { _ in UInt8.random(in: 0...255) }
    var key = P256.Signing.PrivateKey()
    var credentialId: [UInt8] = (0..<16).map { _ in UInt8.random(in: 0...255) }
    var aaguid = [UInt8](repeating: 0, count: 16)
    var flags: UInt8 = 0x01 | 0x04 // UP, UV
    var signCount: UInt32 = 0
    var userHandle: [UInt8] = Array("user-handle-1".utf8)
    /// Replaces the client data's members (a nil value removes the member).
    var clientDataOverrides: [String: Any?] = [:]
    /// Replaces the COSE key (for key/algorithm mismatch tests).
    var coseKeyOverride: [UInt8]?

    static let relyingParty = RelyingParty(id: "example.com", name: "Example", origins: ["https://example.com"])

    var coseKey: [UInt8] {
        if let coseKeyOverride { return coseKeyOverride }
        let point = Array(key.publicKey.x963Representation)
        return Self.ec2Key(alg: -7, crv: 1, x: Array(point[1...32]), y: Array(point[33...64]))
    }

    static func ec2Key(alg: Int64, crv: Int64, x: [UInt8], y: [UInt8]) -> [UInt8] {
        let map = CBORMap([(.int(1), .int(2)), (.int(3), .int(alg)), (.int(-1), .int(crv)), (.int(-2), .bytes(x)), (.int(-3), .bytes(y))])
        return CBOREncoder().encode(.map(map ?? CBORMap()))
    }

    func clientDataJSON(type: String) -> [UInt8] {
        var members: [String: Any] = [
            "type": type, "challenge": Base64URL.encode(challenge), "origin": origin, "crossOrigin": false,
        ]
        for (name, value) in clientDataOverrides {
            if let value { members[name] = value } else { members.removeValue(forKey: name) }
        }
        let data = (try? JSONSerialization.data(withJSONObject: members, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data()
        return Array(data)
    }

    func authenticatorData(attested: Bool, extensions: [UInt8] = []) -> [UInt8] {
        var flags = self.flags
        if attested { flags |= 0x40 }
        var bytes = Array(SHA256.hash(data: Array(rpId.utf8)))
        bytes.append(flags)
        bytes += withUnsafeBytes(of: signCount.bigEndian, Array.init)
        if attested {
            bytes += aaguid
            bytes += [UInt8(credentialId.count >> 8), UInt8(credentialId.count & 0xff)]
            bytes += credentialId
            bytes += coseKey
        }
        return bytes + extensions
    }

    func attestationObject(fmt: String = "none", statement: CBORMap = CBORMap(), authData: [UInt8]) -> [UInt8] {
        let map = CBORMap([(.text("fmt"), .text(fmt)), (.text("attStmt"), .map(statement)), (.text("authData"), .bytes(authData))])
        return CBOREncoder().encode(.map(map ?? CBORMap()))
    }

    func registration(attestationObject: [UInt8], clientData: [UInt8]? = nil) -> RegistrationResponseJSON {
        let id = Base64URL.encode(credentialId)
        return RegistrationResponseJSON(
            id: id, rawId: id,
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: Base64URL.encode(clientData ?? clientDataJSON(type: "webauthn.create")),
                attestationObject: Base64URL.encode(attestationObject), transports: ["internal", "hybrid"]))
    }

    /// A `none` registration.
    func registration() -> RegistrationResponseJSON {
        registration(attestationObject: attestationObject(authData: authenticatorData(attested: true)))
    }

    /// A `packed` self-attested registration, signed by the credential key.
    func packedSelfRegistration(alg: Int64 = -7, signWith signer: P256.Signing.PrivateKey? = nil) throws -> RegistrationResponseJSON {
        let authData = authenticatorData(attested: true)
        let clientData = clientDataJSON(type: "webauthn.create")
        let signature = try (signer ?? key).signature(for: authData + SHA256.hash(data: clientData)).derRepresentation
        let statement = CBORMap([(.text("alg"), .int(alg)), (.text("sig"), .bytes(Array(signature)))]) ?? CBORMap()
        return registration(attestationObject: attestationObject(fmt: "packed", statement: statement, authData: authData), clientData: clientData)
    }

    /// A `packed` registration with an x5c chain: the attestation certificate signed by `issuer`.
    func packedX5CRegistration(attestationKey: P256.Signing.PrivateKey, chain: [Certificate]) throws -> RegistrationResponseJSON {
        let authData = authenticatorData(attested: true)
        let clientData = clientDataJSON(type: "webauthn.create")
        let signature = try attestationKey.signature(for: authData + SHA256.hash(data: clientData)).derRepresentation
        let x5c = try chain.map { certificate -> CBORValue in
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            return .bytes(serializer.serializedBytes)
        }
        let statement = CBORMap([(.text("alg"), .int(-7)), (.text("sig"), .bytes(Array(signature))), (.text("x5c"), .array(x5c))]) ?? CBORMap()
        return registration(attestationObject: attestationObject(fmt: "packed", statement: statement, authData: authData), clientData: clientData)
    }

    /// An assertion signed by the credential key (or `signer`).
    func assertion(signWith signer: P256.Signing.PrivateKey? = nil, authData: [UInt8]? = nil, clientData: [UInt8]? = nil) throws -> AuthenticationResponseJSON {
        let authData = authData ?? authenticatorData(attested: false)
        let clientData = clientData ?? clientDataJSON(type: "webauthn.get")
        let signature = try (signer ?? key).signature(for: authData + SHA256.hash(data: clientData)).derRepresentation
        let id = Base64URL.encode(credentialId)
        return AuthenticationResponseJSON(
            id: id, rawId: id,
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: Base64URL.encode(clientData), authenticatorData: Base64URL.encode(authData),
                signature: Base64URL.encode(signature), userHandle: Base64URL.encode(userHandle)))
    }

    func storedCredential(signCount: UInt32 = 0, backupEligible: Bool? = nil) throws -> StoredCredential {
        try StoredCredential(
            id: credentialId, publicKeyCOSE: coseKey, signCount: signCount, backupEligible: backupEligible, userHandle: userHandle)
    }
}

/// Test certificates for x5c chains.
enum TestPKI {
    static let aaguidOID: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 45724, 1, 1, 4]

    struct Issued {
        let certificate: Certificate
        let key: P256.Signing.PrivateKey
    }

    static func root(name: String = "Latchkey Test Root", notAfter: Date = Date() + 86_400 * 365) throws -> Issued {
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName { CommonName(name) }
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: Date() - 86_400 * 30, notValidAfter: notAfter, issuer: subject, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: nil))
                KeyUsage(keyCertSign: true)
            },
            issuerPrivateKey: .init(key))
        return Issued(certificate: certificate, key: key)
    }

    /// An attestation certificate meeting §8.2.1 unless told otherwise.
    static func attestation(
        issuer: Issued, aaguid: [UInt8]?, isCA: Bool = false, organizationalUnit: String = "Authenticator Attestation",
        notBefore: Date = Date() - 3600, notAfter: Date = Date() + 86_400 * 30
    ) throws -> Issued {
        let key = P256.Signing.PrivateKey()
        let subject = try DistinguishedName {
            CountryName("SE")
            OrganizationName("Latchkey Test")
            OrganizationalUnitName(organizationalUnit)
            CommonName("Latchkey Test Attestation")
        }
        var extensions = try Certificate.Extensions {
            Critical(isCA ? BasicConstraints.isCertificateAuthority(maxPathLength: nil) : BasicConstraints.notCertificateAuthority)
        }
        if let aaguid {
            var serializer = DER.Serializer()
            try serializer.serialize(ASN1OctetString(contentBytes: ArraySlice(aaguid)))
            try extensions.append(Certificate.Extension(oid: aaguidOID, critical: false, value: ArraySlice(serializer.serializedBytes)))
        }
        let certificate = try Certificate(
            version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey),
            notValidBefore: notBefore, notValidAfter: notAfter, issuer: issuer.certificate.subject, subject: subject,
            signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: .init(issuer.key))
        return Issued(certificate: certificate, key: key)
    }
}
