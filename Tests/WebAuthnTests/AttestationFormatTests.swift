import CBOR
import Crypto
import Foundation
import SwiftASN1
import Testing
import X509
@testable import WebAuthn

/// Failing inputs per attestation format. Real captures from the shared vectors are altered one piece at
/// a time (re-encoded with the canonical encoder, so only the altered piece changes); TPM statements are
/// also built from scratch so that each §8.3.1 certificate rule can be broken on its own.
@Suite("Attestation formats: failing inputs")
struct AttestationFormatTests {
    // MARK: Altering real captures

    static func document(_ id: String, alter: (inout [String: Any]) throws -> Void) throws -> CeremonyDocument {
        var vector = try #require(SharedVectors.vector(id))
        try alter(&vector)
        if (vector["decoded"] as? [String: Any])?["alg_name"] as? String == "RS1" {
            vector["policy"] = ["allow_rs1": true]
        }
        return try CeremonyDocument(json: JSONSerialization.data(withJSONObject: vector))
    }

    /// Rewrites the attestation object of a registration vector.
    static func alterAttestation(_ vector: inout [String: Any], _ change: (inout CBORMap) throws -> Void) throws {
        var credential = try #require(vector["credential"] as? [String: Any])
        var response = try #require(credential["response"] as? [String: Any])
        let encoded = try #require(response["attestationObject"] as? String)
        let bytes = try #require(Base64URL.decode(encoded))
        var object = try #require(try CBORDecoder().decode(bytes).mapValue)
        try change(&object)
        response["attestationObject"] = Base64URL.encode(CBOREncoder().encode(.map(object)))
        credential["response"] = response
        vector["credential"] = credential
    }

    static func alterStatement(_ vector: inout [String: Any], _ change: (inout CBORMap) throws -> Void) throws {
        try alterAttestation(&vector) { object in
            var statement = try #require(object[text: "attStmt"]?.mapValue)
            try change(&statement)
            object = replacing(object, key: "attStmt", with: .map(statement))
        }
    }

    static func replacing(_ map: CBORMap, key: String, with value: CBORValue) -> CBORMap {
        var out = CBORMap()
        for entry in map.entries {
            out.insert(entry.key == .text(key) ? value : entry.value, for: entry.key)
        }
        return out
    }

    static func failure(_ document: CeremonyDocument) async -> WebAuthnError? {
        do {
            _ = try await document.verify()
            return nil
        } catch {
            return error as? WebAuthnError
        }
    }

    @Test("tpm: a tampered certInfo or pubArea fails")
    func tpmTampered() async throws {
        for member in ["certInfo", "pubArea"] {
            let doc = try Self.document("pywebauthn-reg-tpm-ecc") { vector in
                try Self.alterStatement(&vector) { statement in
                    var bytes = try #require(statement[text: member]?.bytesValue)
                    bytes[bytes.count - 3] ^= 0x01
                    statement = Self.replacing(statement, key: member, with: .bytes(bytes))
                }
            }
            let error = await Self.failure(doc)
            #expect(error?.code == "attestation_statement_malformed" || error?.code == "attestation_signature_invalid", "\(member): \(String(describing: error))")
        }
    }

    /// Byte 36 is the last byte of the sign count, which no other check looks at; U2F signs no counter,
    /// so for fido-u2f byte 55, the first of the credential id, is changed instead.
    @Test("a changed authenticator data byte breaks the nonce (apple) or the signature (android-key, fido-u2f, tpm, android-safetynet)", arguments: [
        ("go-spec-reg-apple-es256", 36, "attestation_certificate_invalid"),
        ("w3c-l3-reg-android-key-es256", 36, "attestation_signature_invalid"),
        ("yubico-reg-yubi-key4", 55, "attestation_signature_invalid"),
        ("pywebauthn-reg-tpm-ecc", 36, "attestation_statement_malformed"),
        ("yubico-reg-android-safetynet-real-example", 36, "attestation_statement_malformed"),
    ])
    func authenticatorDataBound(id: String, index: Int, code: String) async throws {
        let doc = try Self.document(id) { vector in
            try Self.alterAttestation(&vector) { object in
                var authData = try #require(object[text: "authData"]?.bytesValue)
                authData[index] ^= 0x01
                object = Self.replacing(object, key: "authData", with: .bytes(authData))
            }
        }
        let error = await Self.failure(doc)
        #expect(error?.code == code, "\(id): \(String(describing: error))")
    }

    @Test("an expired chain at the verification time, and a chain to the wrong root, fail", arguments: [
        "pywebauthn-reg-apple", "swa-reg-android-key-galaxy-s9", "yubico-reg-windows-hello-tpm", "pywebauthn-reg-android-safetynet",
    ])
    func chainTimeAndRoot(id: String) async throws {
        let expired = try Self.document(id) { $0["verification_time"] = "2045-01-01T00:00:00Z" }
        #expect(await Self.failure(expired)?.code == "attestation_chain_invalid", "\(id) in 2045")
        let otherRoot = try #require(((SharedVectors.vector("go-spec-reg-packed-x5c-es256")?["attestation_trust"] as? [String: Any])?["roots_pem"] as? [String]))
        let wrongRoot = try Self.document(id) { vector in
            var trust = try #require(vector["attestation_trust"] as? [String: Any])
            trust["roots_pem"] = otherRoot
            vector["attestation_trust"] = trust
        }
        #expect(await Self.failure(wrongRoot)?.code == "attestation_chain_invalid", "\(id) with the wrong root")
    }

    @Test("safetynet: CTS and freshness are policies")
    func safetyNetPolicies() async throws {
        let strict = try Self.document("swa-reg-android-safetynet-cts-not-enforced") { vector in
            vector["policy"] = ["safetynet_enforce_cts_profile_match": true, "safetynet_check_timestamp": true]
        }
        #expect(await Self.failure(strict)?.code == "attestation_statement_malformed")
        let stale = try Self.document("swa-reg-android-safetynet-cts-not-enforced") { vector in
            vector["verification_time"] = "2025-06-09T20:45:00Z"
        }
        #expect(await Self.failure(stale)?.message.contains("timestampMs") == true)
    }

    // MARK: TPM statements built from scratch

    /// A TPM attestation for a P-256 credential, with an AIK certificate the test shapes.
    struct TPMStatement {
        var aikSubjectEmpty = true
        var aikIsCA = false
        var ekus: [ASN1ObjectIdentifier] = [[2, 23, 133, 8, 3]]
        var sanAttributes = true
        var aaguid: [UInt8]? = nil
        var tamperExtraData = false

        func registration(_ f: Fabricator) throws -> RegistrationResponseJSON {
            let authData = f.authenticatorData(attested: true)
            let clientData = f.clientDataJSON(type: "webauthn.create")
            let point = Array(f.key.publicKey.x963Representation)
            // TPMT_PUBLIC: ECC, nameAlg SHA-256, attributes, empty policy, symmetric NULL, scheme NULL,
            // curve P-256, kdf NULL, x, y.
            var pubArea: [UInt8] = [0x00, 0x23, 0x00, 0x0b, 0x00, 0x04, 0x04, 0x72, 0x00, 0x00, 0x00, 0x10, 0x00, 0x10, 0x00, 0x03, 0x00, 0x10]
            pubArea += [0x00, 0x20] + point[1...32] + [0x00, 0x20] + point[33...64]
            var extraData = Array(SHA256.hash(data: authData + SHA256.hash(data: clientData)))
            if tamperExtraData { extraData[0] ^= 1 }
            let name = [0x00, 0x0b] + Array(SHA256.hash(data: pubArea))
            var certInfo: [UInt8] = [0xff, 0x54, 0x43, 0x47, 0x80, 0x17, 0x00, 0x00]
            certInfo += [0x00, UInt8(extraData.count)] + extraData + [UInt8](repeating: 0, count: 25)
            certInfo += [0x00, UInt8(name.count)] + name + [0x00, 0x00]
            let aikKey = P256.Signing.PrivateKey()
            let signature = try aikKey.signature(for: certInfo).derRepresentation
            let root = try TestPKI.root()
            let certificate = try aikCertificate(key: aikKey, issuer: root)
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            let statement = CBORMap([
                (.text("ver"), .text("2.0")), (.text("alg"), .int(-7)), (.text("x5c"), .array([.bytes(serializer.serializedBytes)])),
                (.text("sig"), .bytes(Array(signature))), (.text("certInfo"), .bytes(certInfo)), (.text("pubArea"), .bytes(pubArea)),
            ]) ?? CBORMap()
            return f.registration(attestationObject: f.attestationObject(fmt: "tpm", statement: statement, authData: authData), clientData: clientData)
        }

        func aikCertificate(key: P256.Signing.PrivateKey, issuer: TestPKI.Issued) throws -> Certificate {
            let subject = aikSubjectEmpty ? try DistinguishedName {} : try DistinguishedName { CommonName("AIK") }
            var extensions = try Certificate.Extensions {
                Critical(aikIsCA ? BasicConstraints.isCertificateAuthority(maxPathLength: nil) : BasicConstraints.notCertificateAuthority)
                try ExtendedKeyUsage(ekus.map { ExtendedKeyUsage.Usage(oid: $0) })
            }
            if sanAttributes {
                let tpmName = DistinguishedName([
                    RelativeDistinguishedName([
                        .init(type: [2, 23, 133, 2, 1], utf8String: "id:4E544300"),
                        .init(type: [2, 23, 133, 2, 2], utf8String: "NPCT6xx"),
                        .init(type: [2, 23, 133, 2, 3], utf8String: "id:0007"),
                    ]),
                ])
                try extensions.append(Certificate.Extension(SubjectAlternativeNames([.directoryName(tpmName)]), critical: true))
            }
            if let aaguid {
                var value = DER.Serializer()
                try value.serialize(ASN1OctetString(contentBytes: ArraySlice(aaguid)))
                try extensions.append(Certificate.Extension(oid: [1, 3, 6, 1, 4, 1, 45724, 1, 1, 4], critical: false, value: ArraySlice(value.serializedBytes)))
            }
            return try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(key.publicKey), notValidBefore: Date() - 3600,
                notValidAfter: Date() + 86_400, issuer: issuer.certificate.subject, subject: subject,
                signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions, issuerPrivateKey: .init(issuer.key))
        }
    }

    static func verifyTPM(_ statement: TPMStatement) async throws -> WebAuthnError? {
        var f = Fabricator()
        f.aaguid = Array(0x20...0x2f)
        let credential = try statement.registration(f)
        do {
            _ = try await RegistrationVerifier(relyingParty: Fabricator.relyingParty).verify(credential, expectedChallenge: f.challenge)
            return nil
        } catch {
            return error
        }
    }

    @Test("tpm built from scratch verifies; each broken §8.3 rule fails with its own message")
    func tpmRules() async throws {
        #expect(try await Self.verifyTPM(TPMStatement()) == nil)
        #expect(try await Self.verifyTPM(TPMStatement(aaguid: Array(0x20...0x2f))) == nil)
        let cases: [(TPMStatement, String)] = [
            (TPMStatement(aikSubjectEmpty: false), "subject must be empty"),
            (TPMStatement(aikIsCA: true), "CA set to false"),
            (TPMStatement(ekus: [[1, 3, 6, 1, 5, 5, 7, 3, 2]]), "tcg-kp-AIKCertificate"),
            (TPMStatement(sanAttributes: false), "subject alternative name"),
            (TPMStatement(tamperExtraData: true), "extraData"),
        ]
        for (statement, fragment) in cases {
            let error = try await Self.verifyTPM(statement)
            #expect(error?.message.contains(fragment) == true, "\(fragment): \(String(describing: error))")
        }
        #expect(try await Self.verifyTPM(TPMStatement(aaguid: [UInt8](repeating: 9, count: 16)))?.code == "attestation_aaguid_mismatch")
    }

    @Test("compound: every contained statement must verify")
    func compound() async throws {
        let f = Fabricator()
        let authData = f.authenticatorData(attested: true)
        let clientData = f.clientDataJSON(type: "webauthn.create")
        let signature = Array(try f.key.signature(for: authData + SHA256.hash(data: clientData)).derRepresentation)
        let good = CBORValue.map(CBORMap([(.text("fmt"), .text("packed")), (.text("attStmt"), .map(CBORMap([(.text("alg"), .int(-7)), (.text("sig"), .bytes(signature))]) ?? CBORMap()))]) ?? CBORMap())
        let bad = CBORValue.map(CBORMap([(.text("fmt"), .text("packed")), (.text("attStmt"), .map(CBORMap([(.text("alg"), .int(-7)), (.text("sig"), .bytes([0x30, 0x00]))]) ?? CBORMap()))]) ?? CBORMap())
        func verify(_ statements: [CBORValue]) async -> WebAuthnError? {
            let object = CBOREncoder().encode(.map(CBORMap([(.text("fmt"), .text("compound")), (.text("attStmt"), .array(statements)), (.text("authData"), .bytes(authData))]) ?? CBORMap()))
            do {
                _ = try await RegistrationVerifier(relyingParty: Fabricator.relyingParty).verify(
                    f.registration(attestationObject: object, clientData: clientData), expectedChallenge: f.challenge)
                return nil
            } catch {
                return error
            }
        }
        #expect(await verify([good, good]) == nil)
        #expect(await verify([good, bad])?.code == "attestation_signature_invalid")
        #expect(await verify([good])?.code == "attestation_statement_malformed")
        let nested = CBORValue.map(CBORMap([(.text("fmt"), .text("compound")), (.text("attStmt"), .array([good, good]))]) ?? CBORMap())
        #expect(await verify([good, nested])?.code == "attestation_statement_malformed")
    }
}
