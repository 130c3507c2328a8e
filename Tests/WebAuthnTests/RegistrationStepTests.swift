import CBOR
import Crypto
import Foundation
import Testing
@testable import WebAuthn

/// One failing input per rule of §7.1 (and a passing baseline), each checking the error code and step.
@Suite("Registration (§7.1) steps")
struct RegistrationStepTests {
    let rp = Fabricator.relyingParty

    func verify(
        _ f: Fabricator, _ credential: RegistrationResponseJSON? = nil, rp: RelyingParty? = nil
    ) async throws(WebAuthnError) -> RegistrationResult {
        try await RegistrationVerifier(relyingParty: rp ?? self.rp).verify(credential ?? f.registration(), expectedChallenge: f.challenge)
    }

    func failure(
        _ f: Fabricator, _ credential: RegistrationResponseJSON? = nil, rp: RelyingParty? = nil
    ) async -> WebAuthnError? {
        do {
            _ = try await verify(f, credential, rp: rp)
            return nil
        } catch {
            return error
        }
    }

    @Test("a well-formed none registration verifies and reports what a server stores")
    func baseline() async throws {
        let f = Fabricator()
        let result = try await verify(f)
        #expect(result.credentialId == f.credentialId)
        #expect(result.publicKey == f.coseKey)
        #expect(result.publicKeyAlgorithm == .es256)
        #expect(result.attestationFormat == "none")
        #expect(result.attestationType == .none)
        #expect(!result.trustPathVerified)
        #expect(result.userVerified)
        #expect(result.transports == ["internal", "hybrid"])
        #expect(result.aaguidString == "00000000-0000-0000-0000-000000000000")
    }

    @Test("step 3: credential type, id/rawId agreement and base64url members")
    func step3() async throws {
        let f = Fabricator()
        var credential = f.registration()
        credential.type = "password"
        #expect(await failure(f, credential)?.code == "credential_type_invalid")
        credential = f.registration()
        credential.id = Base64URL.encode([1, 2, 3])
        #expect(await failure(f, credential)?.code == "credential_id_mismatch")
        credential = f.registration()
        credential.response.clientDataJSON = "not*base64"
        let error = await failure(f, credential)
        #expect(error?.code == "malformed_credential")
        #expect(error?.step == "§7.1 step 3")
        credential = f.registration()
        credential.response.attestationObject = "AAAA+/=="
        #expect(await failure(f, credential)?.code == "malformed_credential")
    }

    @Test("steps 5–6: clientDataJSON must be UTF-8 JSON with the required members")
    func steps5and6() async throws {
        let f = Fabricator()
        let attestation = f.attestationObject(authData: f.authenticatorData(attested: true))
        let invalidUTF8 = f.registration(attestationObject: attestation, clientData: [0x7b, 0xff, 0xfe, 0x7d])
        #expect(await failure(f, invalidUTF8)?.code == "client_data_malformed")
        let notJSON = f.registration(attestationObject: attestation, clientData: Array("type=webauthn.create".utf8))
        #expect(await failure(f, notJSON)?.code == "client_data_malformed")
        var missing = f
        missing.clientDataOverrides = ["challenge": nil]
        let error = await failure(missing)
        #expect(error?.code == "client_data_malformed")
        #expect(error?.step == "§7.1 step 6")
    }

    @Test("step 7: type must be webauthn.create")
    func step7() async {
        var f = Fabricator()
        f.clientDataOverrides = ["type": "webauthn.get"]
        let error = await failure(f)
        #expect(error?.code == "client_data_type_mismatch")
        #expect(error?.step == "§7.1 step 7")
    }

    @Test("step 8: the challenge must be the one issued")
    func step8() async {
        var f = Fabricator()
        f.clientDataOverrides = ["challenge": Base64URL.encode([UInt8](repeating: 9, count: 32))]
        let error = await failure(f)
        #expect(error?.code == "challenge_mismatch")
        #expect(error?.step == "§7.1 step 8")
    }

    @Test("step 9: the origin matches exactly — no suffix, scheme or port leniency", arguments: [
        "https://evil-example.com", "https://example.com.evil.org", "http://example.com", "https://example.com:8443",
        "https://sub.example.com", "https://EXAMPLE.com", "",
    ])
    func step9(origin: String) async {
        var f = Fabricator()
        f.origin = origin
        let error = await failure(f)
        #expect(error?.code == "origin_not_allowed")
        #expect(error?.step == "§7.1 step 9")
    }

    @Test("step 9: any of several configured origins is accepted")
    func step9SeveralOrigins() async throws {
        var f = Fabricator()
        f.origin = "https://login.example.com"
        var rp = self.rp
        rp.origins = ["https://example.com", "https://login.example.com/"]
        #expect(try await verify(f, rp: rp).credentialId == f.credentialId)
    }

    @Test("steps 10–11: cross-origin and top origin need the relying party's consent")
    func steps10and11() async throws {
        var f = Fabricator()
        f.clientDataOverrides = ["crossOrigin": true]
        let error = await failure(f)
        #expect(error?.code == "cross_origin_not_allowed")
        #expect(error?.step == "§7.1 step 10")
        var rp = self.rp
        rp.allowCrossOrigin = true
        #expect(try await verify(f, rp: rp).credentialId == f.credentialId)

        f.clientDataOverrides = ["crossOrigin": true, "topOrigin": "https://attacker.example"]
        rp.allowedTopOrigins = ["https://shop.example"]
        let top = await failure(f, rp: rp)
        #expect(top?.code == "top_origin_not_allowed")
        #expect(top?.step == "§7.1 step 11")
        f.clientDataOverrides = ["crossOrigin": true, "topOrigin": "https://shop.example"]
        #expect(try await verify(f, rp: rp).credentialId == f.credentialId)
    }

    @Test("step 13: the attestation object must be well-formed CBOR with fmt, attStmt and authData")
    func step13AttestationObject() async {
        let f = Fabricator()
        let cases: [[UInt8]] = [
            [0xa3, 0x63], // truncated
            [0x80], // not a map
            CBOREncoder().encode(.map(CBORMap([(.text("fmt"), .text("none"))]) ?? CBORMap())), // members missing
            // duplicate key "fmt"
            [0xa2, 0x63] + Array("fmt".utf8) + [0x64] + Array("none".utf8) + [0x63] + Array("fmt".utf8) + [0x64] + Array("none".utf8),
            // fmt is invalid UTF-8
            [0xa1, 0x63] + Array("fmt".utf8) + [0x62, 0xc3, 0x28],
            f.attestationObject(authData: f.authenticatorData(attested: true)) + [0x00], // trailing byte
        ]
        for bytes in cases {
            let error = await failure(f, f.registration(attestationObject: bytes))
            #expect(error?.code == "attestation_object_malformed", "\(bytes.prefix(8))")
            #expect(error?.step == "§7.1 step 13")
        }
    }

    @Test("step 13: authenticator data is parsed strictly")
    func step13AuthenticatorData() async {
        let f = Fabricator()
        let good = f.authenticatorData(attested: true)
        var noData = f
        noData.flags |= 0x40
        let cases: [(String, [UInt8], String)] = [
            ("truncated header", Array(good.prefix(20)), "authenticator_data_malformed"),
            ("truncated key", Array(good.dropLast(5)), "authenticator_data_malformed"),
            ("trailing bytes", good + [0x01, 0x02], "authenticator_data_malformed"),
            ("ED without extensions", { var b = good; b[32] |= 0x80; return b }(), "authenticator_data_malformed"),
            ("AT without attested data", noData.authenticatorData(attested: false), "attestation_object_malformed"),
            ("oversized credential id length", Array(good.prefix(53)) + [0xff, 0xff] + Array(good.dropFirst(55)), "credential_id_too_long"),
            ("declared length beyond input", Array(good.prefix(53)) + [0x03, 0xff] + Array(good.dropFirst(55)), "authenticator_data_malformed"),
        ]
        for (name, authData, code) in cases {
            let error = await failure(f, f.registration(attestationObject: f.attestationObject(authData: authData)))
            // The attestation object wraps authData, so an AT flag with no data surfaces as attestedCredentialDataMissing or malformed.
            let acceptable: Set<String> = code == "attestation_object_malformed"
                ? ["authenticator_data_malformed", "attested_credential_data_missing"] : [code]
            #expect(error.map { acceptable.contains($0.code) } == true, "\(name): \(String(describing: error))")
        }
        // Attested credential data missing entirely (AT flag clear).
        let error = await failure(f, f.registration(attestationObject: f.attestationObject(authData: f.authenticatorData(attested: false))))
        #expect(error?.code == "attested_credential_data_missing")
    }

    @Test("step 13: a COSE key nested beyond the depth limit is refused")
    func step13DeepNesting() async {
        var f = Fabricator()
        f.coseKeyOverride = [0xa1, 0x01] + [UInt8](repeating: 0x81, count: 5000) + [0x00]
        let error = await failure(f)
        #expect(error?.code == "authenticator_data_malformed")
        #expect(error?.message.contains("deeper") == true)
    }

    @Test("step 14: rpIdHash must be SHA-256 of the RP ID")
    func step14() async {
        var f = Fabricator()
        f.rpId = "evil.example"
        let error = await failure(f)
        #expect(error?.code == "rp_id_hash_mismatch")
        #expect(error?.step == "§7.1 step 14")
    }

    @Test("step 15: user presence is required")
    func step15() async throws {
        var f = Fabricator()
        f.flags = 0x04
        let error = await failure(f)
        #expect(error?.code == "user_not_present")
        #expect(error?.step == "§7.1 step 15")
        // A conditional-mediation create may omit UP.
        let result = try await RegistrationVerifier(relyingParty: rp).verify(
            f.registration(), expectedChallenge: f.challenge, requireUserPresence: false)
        #expect(!result.userPresent)
    }

    @Test("step 16: user verification is enforced when required, not otherwise")
    func step16() async throws {
        var f = Fabricator()
        f.flags = 0x01
        let error = await failure(f)
        #expect(error?.code == "user_not_verified")
        #expect(error?.step == "§7.1 step 16")
        var rp = self.rp
        rp.userVerification = .preferred
        #expect(try await verify(f, rp: rp).userVerified == false)
    }

    @Test("step 17: BS without BE is refused")
    func step17() async throws {
        var f = Fabricator()
        f.flags = 0x01 | 0x04 | 0x10
        let error = await failure(f)
        #expect(error?.code == "backup_state_without_eligibility")
        #expect(error?.step == "§7.1 step 17")
        f.flags |= 0x08
        let result = try await verify(f)
        #expect(result.backupEligible && result.backupState)
    }

    @Test("step 20: the credential algorithm must be one that was offered")
    func step20() async {
        let f = Fabricator()
        var rp = self.rp
        rp.allowedAlgorithms = [.edDSA, .rs256]
        let error = await failure(f, rp: rp)
        #expect(error?.code == "algorithm_not_allowed")
        #expect(error?.step == "§7.1 step 20")
    }

    @Test("COSE key type, curve and algorithm must agree")
    func keyAlgorithmMismatch() async {
        let point = Array(P256.Signing.PrivateKey().publicKey.x963Representation)
        let (x, y) = (Array(point[1...32]), Array(point[33...64]))
        let cases: [[UInt8]] = [
            Fabricator.ec2Key(alg: -7, crv: 2, x: x, y: y), // ES256 on P-384
            Fabricator.ec2Key(alg: -257, crv: 1, x: x, y: y), // RS256 on an EC2 key
            Fabricator.ec2Key(alg: -7, crv: 1, x: Array(x.dropLast()), y: y), // short coordinate
            Fabricator.ec2Key(alg: -7, crv: 1, x: x, y: x), // not on the curve
        ]
        for key in cases {
            var f = Fabricator()
            f.coseKeyOverride = key
            #expect(await failure(f)?.code == "public_key_invalid")
        }
        var unknownAlg = Fabricator()
        unknownAlg.coseKeyOverride = Fabricator.ec2Key(alg: -47, crv: 1, x: x, y: y)
        #expect(await failure(unknownAlg)?.code == "unsupported_algorithm")
    }

    @Test("step 22: formats match case-sensitively; unknown formats are refused")
    func step22() async {
        let f = Fabricator()
        for fmt in ["Packed", "TPM", "fido-u2f ", "x", ""] {
            let credential = f.registration(attestationObject: f.attestationObject(fmt: fmt, authData: f.authenticatorData(attested: true)))
            let error = await failure(f, credential)
            #expect(error?.code == "unsupported_attestation_format")
            #expect(error?.step == "§7.1 step 22")
        }
    }

    @Test("step 23: none must have an empty statement")
    func step23None() async {
        let f = Fabricator()
        let statement = CBORMap([(.text("alg"), .int(-7))]) ?? CBORMap()
        let credential = f.registration(attestationObject: f.attestationObject(statement: statement, authData: f.authenticatorData(attested: true)))
        let error = await failure(f, credential)
        #expect(error?.code == "attestation_statement_malformed")
        #expect(error?.step == "§7.1 step 23")
    }

    @Test("step 26: credential ids longer than 1023 bytes are refused")
    func step26() async {
        var f = Fabricator()
        f.credentialId = [UInt8](repeating: 7, count: 1024)
        #expect(await failure(f)?.code == "credential_id_too_long")
        f.credentialId = [UInt8](repeating: 7, count: 1023)
        #expect(await failure(f) == nil)
    }

    @Test("the stored credential id is the one in authenticator data, not the client's rawId")
    func credentialIdFromAuthenticatorData() async throws {
        let f = Fabricator()
        var credential = f.registration()
        let other = Base64URL.encode([UInt8](repeating: 1, count: 16))
        credential.id = other
        credential.rawId = other
        #expect(try await verify(f, credential).credentialId == f.credentialId)
    }
}
