import CBOR
import Crypto
import Foundation
import Testing
import X509
@testable import WebAuthn

/// §8.2 packed attestation: self attestation, x5c with the §8.2.1 certificate rules, and the chain
/// against configured trust anchors at an injectable time.
@Suite("Packed attestation (§8.2)")
struct PackedAttestationTests {
    let aaguid: [UInt8] = Array(0x10...0x1f)

    func fabricator() -> Fabricator {
        var f = Fabricator()
        f.aaguid = aaguid
        return f
    }

    func verify(
        _ f: Fabricator, _ credential: RegistrationResponseJSON, anchors: [Certificate] = [], at time: Date = Date(),
        requireTrusted: Bool = false
    ) async throws(WebAuthnError) -> RegistrationResult {
        var rp = Fabricator.relyingParty
        rp.trustAnchors.add(anchors, forFormat: "packed")
        rp.requireTrustedAttestation = requireTrusted
        return try await RegistrationVerifier(relyingParty: rp).verify(credential, expectedChallenge: f.challenge, verificationTime: time)
    }

    func failure(
        _ f: Fabricator, _ credential: RegistrationResponseJSON, anchors: [Certificate] = [], at time: Date = Date(),
        requireTrusted: Bool = false
    ) async -> WebAuthnError? {
        do {
            _ = try await verify(f, credential, anchors: anchors, at: time, requireTrusted: requireTrusted)
            return nil
        } catch {
            return error
        }
    }

    @Test("self attestation verifies with the credential key")
    func selfAttestation() async throws {
        let f = fabricator()
        let result = try await verify(f, f.packedSelfRegistration())
        #expect(result.attestationFormat == "packed")
        #expect(result.attestationType == .self)
        #expect(!result.trustPathVerified)
    }

    @Test("self attestation: wrong signer, or alg differing from the credential key's, fails")
    func selfAttestationFailures() async throws {
        let f = fabricator()
        let wrongKey = await failure(f, try f.packedSelfRegistration(signWith: P256.Signing.PrivateKey()))
        #expect(wrongKey?.code == "attestation_signature_invalid")
        #expect(wrongKey?.step == "§7.1 step 23")
        let wrongAlg = await failure(f, try f.packedSelfRegistration(alg: -257))
        #expect(wrongAlg?.code == "attestation_statement_malformed")
    }

    @Test("ECDAA is refused clearly")
    func ecdaa() async throws {
        let f = fabricator()
        let statement = CBORMap([(.text("alg"), .int(-7)), (.text("sig"), .bytes([1])), (.text("ecdaaKeyId"), .bytes([2]))]) ?? CBORMap()
        let credential = f.registration(attestationObject: f.attestationObject(fmt: "packed", statement: statement, authData: f.authenticatorData(attested: true)))
        let error = await failure(f, credential)
        #expect(error?.code == "attestation_statement_malformed")
        #expect(error?.message.contains("ECDAA") == true)
    }

    @Test("x5c chained to a configured root is trusted; without roots it is reported unverified")
    func x5cTrusted() async throws {
        let f = fabricator()
        let root = try TestPKI.root()
        let leaf = try TestPKI.attestation(issuer: root, aaguid: aaguid)
        let credential = try f.packedX5CRegistration(attestationKey: leaf.key, chain: [leaf.certificate])
        let trusted = try await verify(f, credential, anchors: [root.certificate])
        #expect(trusted.attestationType == .basic)
        #expect(trusted.trustPathVerified)
        #expect(trusted.attestationTrustPath.count == 1)
        let unanchored = try await verify(f, credential)
        #expect(!unanchored.trustPathVerified)
        let required = await failure(f, credential, requireTrusted: true)
        #expect(required?.code == "attestation_type_not_allowed")
    }

    @Test("x5c chained to a different root fails")
    func x5cWrongRoot() async throws {
        let f = fabricator()
        let root = try TestPKI.root()
        let other = try TestPKI.root(name: "Someone Else")
        let leaf = try TestPKI.attestation(issuer: root, aaguid: aaguid)
        let error = await failure(f, try f.packedX5CRegistration(attestationKey: leaf.key, chain: [leaf.certificate]), anchors: [other.certificate])
        #expect(error?.code == "attestation_chain_invalid")
        #expect(error?.step == "§7.1 step 25")
    }

    @Test("an expired attestation certificate fails at the verification time, and passes at a time inside its validity")
    func x5cExpired() async throws {
        let f = fabricator()
        let root = try TestPKI.root()
        let leaf = try TestPKI.attestation(issuer: root, aaguid: aaguid, notBefore: Date() - 86_400 * 10, notAfter: Date() - 86_400)
        let credential = try f.packedX5CRegistration(attestationKey: leaf.key, chain: [leaf.certificate])
        #expect(await failure(f, credential, anchors: [root.certificate])?.code == "attestation_chain_invalid")
        let past = try await verify(f, credential, anchors: [root.certificate], at: Date() - 86_400 * 5)
        #expect(past.trustPathVerified)
    }

    @Test("§8.2.1: CA true, wrong OU and an AAGUID extension mismatch each fail with their rule")
    func certificateRequirements() async throws {
        let f = fabricator()
        let root = try TestPKI.root()

        let ca = try TestPKI.attestation(issuer: root, aaguid: aaguid, isCA: true)
        let caError = await failure(f, try f.packedX5CRegistration(attestationKey: ca.key, chain: [ca.certificate]))
        #expect(caError?.code == "attestation_certificate_invalid")
        #expect(caError?.message.contains("CA") == true)

        let ou = try TestPKI.attestation(issuer: root, aaguid: aaguid, organizationalUnit: "Marketing")
        let ouError = await failure(f, try f.packedX5CRegistration(attestationKey: ou.key, chain: [ou.certificate]))
        #expect(ouError?.code == "attestation_certificate_invalid")
        #expect(ouError?.message.contains("OU") == true)

        let mismatch = try TestPKI.attestation(issuer: root, aaguid: [UInt8](repeating: 0xee, count: 16))
        let aaguidError = await failure(f, try f.packedX5CRegistration(attestationKey: mismatch.key, chain: [mismatch.certificate]))
        #expect(aaguidError?.code == "attestation_aaguid_mismatch")

        let noExtension = try TestPKI.attestation(issuer: root, aaguid: nil)
        #expect(await failure(f, try f.packedX5CRegistration(attestationKey: noExtension.key, chain: [noExtension.certificate])) == nil)
    }

    @Test("x5c signature made by a key other than the certificate's fails")
    func x5cKeyMismatch() async throws {
        let f = fabricator()
        let root = try TestPKI.root()
        let leaf = try TestPKI.attestation(issuer: root, aaguid: aaguid)
        let error = await failure(f, try f.packedX5CRegistration(attestationKey: P256.Signing.PrivateKey(), chain: [leaf.certificate]))
        #expect(error?.code == "attestation_signature_invalid")
    }

    @Test("a malformed x5c is refused, never crashed on")
    func x5cMalformed() async throws {
        let f = fabricator()
        for x5c in [CBORValue.array([]), .array([.bytes([0x30, 0x03, 0x02, 0x01])]), .bytes([1]), .array([.text("cert")])] {
            let statement = CBORMap([(.text("alg"), .int(-7)), (.text("sig"), .bytes([1])), (.text("x5c"), x5c)]) ?? CBORMap()
            let credential = f.registration(attestationObject: f.attestationObject(fmt: "packed", statement: statement, authData: f.authenticatorData(attested: true)))
            #expect(await failure(f, credential)?.code == "attestation_statement_malformed")
        }
    }
}
