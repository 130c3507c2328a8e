import CBOR
import Crypto
import Foundation
import Testing
@testable import WebAuthn

/// One failing input per rule of §7.2 (and passing baselines for each key type).
@Suite("Authentication (§7.2) steps")
struct AuthenticationStepTests {
    func verify(
        _ f: Fabricator, _ credential: AuthenticationResponseJSON? = nil, record: StoredCredential? = nil,
        rp: RelyingParty = Fabricator.relyingParty, allow: [[UInt8]] = []
    ) throws -> AuthenticationResult {
        try AuthenticationVerifier(relyingParty: rp).verify(
            credential ?? f.assertion(), expectedChallenge: f.challenge, storedCredential: record ?? f.storedCredential(),
            allowCredentials: allow)
    }

    func failure(
        _ f: Fabricator, _ credential: AuthenticationResponseJSON? = nil, record: StoredCredential? = nil,
        rp: RelyingParty = Fabricator.relyingParty, allow: [[UInt8]] = []
    ) -> WebAuthnError? {
        do {
            _ = try verify(f, credential, record: record, rp: rp, allow: allow)
            return nil
        } catch let error as WebAuthnError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    @Test("a well-formed assertion verifies and reports what the record needs")
    func baseline() throws {
        var f = Fabricator()
        f.signCount = 5
        let result = try verify(f, record: f.storedCredential(signCount: 4))
        #expect(result.signCount == 5)
        #expect(result.userVerified)
        #expect(!result.possibleClone)
        #expect(result.userHandle == f.userHandle)
    }

    @Test("Ed25519 credentials verify; a signature from another key does not (RSA and the other curves: the vectors)")
    func otherKeyTypes() throws {
        let f = Fabricator()
        let authData = f.authenticatorData(attested: false)
        let clientData = f.clientDataJSON(type: "webauthn.get")
        let signed = authData + SHA256.hash(data: clientData)

        let ed = Curve25519.Signing.PrivateKey()
        let edKey = CBOREncoder().encode(.map(CBORMap([
            (.int(1), .int(1)), (.int(3), .int(-8)), (.int(-1), .int(6)), (.int(-2), .bytes(Array(ed.publicKey.rawRepresentation))),
        ]) ?? CBORMap()))
        var credential = try f.assertion(authData: authData, clientData: clientData)
        credential.response.signature = Base64URL.encode(try ed.signature(for: signed))
        let record = try StoredCredential(id: f.credentialId, publicKeyCOSE: edKey, signCount: 0, userHandle: f.userHandle)
        #expect(try verify(f, credential, record: record).credentialId == f.credentialId)
        credential.response.signature = Base64URL.encode(try Curve25519.Signing.PrivateKey().signature(for: signed))
        #expect(failure(f, credential, record: record)?.code == "signature_invalid")
    }

    @Test("step 5: with allowCredentials, the credential must be listed")
    func step5() throws {
        let f = Fabricator()
        let error = failure(f, allow: [[9, 9, 9]])
        #expect(error?.code == "credential_not_allowed")
        #expect(error?.step == "§7.2 step 5")
        #expect(try verify(f, allow: [[9, 9, 9], f.credentialId]).credentialId == f.credentialId)
    }

    @Test("step 6: the record must be this credential's, and userHandle its user's")
    func step6() throws {
        let f = Fabricator()
        let other = try StoredCredential(id: [1, 2, 3], publicKeyCOSE: f.coseKey, signCount: 0, userHandle: f.userHandle)
        #expect(failure(f, record: other)?.code == "credential_record_mismatch")

        let wrongUser = try StoredCredential(id: f.credentialId, publicKeyCOSE: f.coseKey, signCount: 0, userHandle: Array("someone-else".utf8))
        let error = failure(f, record: wrongUser)
        #expect(error?.code == "user_handle_mismatch")
        #expect(error?.step == "§7.2 step 6")

        var credential = try f.assertion()
        credential.response.userHandle = nil
        #expect(failure(f, credential)?.code == "user_handle_mismatch", "discoverable login needs the userHandle")
    }

    @Test("step 10: type must be webauthn.get")
    func step10() {
        var f = Fabricator()
        f.clientDataOverrides = ["type": "webauthn.create"]
        let error = failure(f)
        #expect(error?.code == "client_data_type_mismatch")
        #expect(error?.step == "§7.2 step 10")
    }

    @Test("step 11: the challenge must be the one issued")
    func step11() {
        var f = Fabricator()
        f.clientDataOverrides = ["challenge": "AAAA"]
        #expect(failure(f)?.step == "§7.2 step 11")
        f.clientDataOverrides = ["challenge": "not base64url!"]
        #expect(failure(f)?.code == "challenge_mismatch")
    }

    @Test("step 12: origin")
    func step12() {
        var f = Fabricator()
        f.origin = "https://evil-example.com"
        let error = failure(f)
        #expect(error?.code == "origin_not_allowed")
        #expect(error?.step == "§7.2 step 12")
    }

    @Test("step 13: crossOrigin")
    func step13() {
        var f = Fabricator()
        f.clientDataOverrides = ["crossOrigin": true]
        #expect(failure(f)?.step == "§7.2 step 13")
    }

    @Test("step 15: rpIdHash")
    func step15() {
        var f = Fabricator()
        f.rpId = "example.org"
        let error = failure(f)
        #expect(error?.code == "rp_id_hash_mismatch")
        #expect(error?.step == "§7.2 step 15")
    }

    @Test("steps 16–18: UP, UV and BS without BE")
    func steps16to18() throws {
        var f = Fabricator()
        f.flags = 0x04
        #expect(failure(f)?.step == "§7.2 step 16")
        f.flags = 0x01
        #expect(failure(f)?.code == "user_not_verified")
        var rp = Fabricator.relyingParty
        rp.userVerification = .discouraged
        #expect(try verify(f, rp: rp).userVerified == false)
        f.flags = 0x01 | 0x04 | 0x10
        #expect(failure(f)?.code == "backup_state_without_eligibility")
    }

    @Test("step 19: backup eligibility may not change from what was stored")
    func step19() throws {
        var f = Fabricator()
        f.flags = 0x01 | 0x04 | 0x08
        let error = failure(f, record: try f.storedCredential(backupEligible: false))
        #expect(error?.code == "backup_eligibility_changed")
        #expect(error?.step == "§7.2 step 19")
        #expect(try verify(f, record: try f.storedCredential(backupEligible: true)).backupEligible)
    }

    @Test("step 22: bad, foreign, malformed or truncated signatures fail")
    func step22() throws {
        let f = Fabricator()
        let foreign = failure(f, try f.assertion(signWith: P256.Signing.PrivateKey()))
        #expect(foreign?.code == "signature_invalid")
        #expect(foreign?.step == "§7.2 step 22")
        var credential = try f.assertion()
        credential.response.signature = Base64URL.encode([0x30, 0x02, 0x01])
        #expect(failure(f, credential)?.code == "signature_invalid")
        credential.response.signature = ""
        #expect(failure(f, credential)?.code == "signature_invalid")
        // Signed client data differs from what was sent.
        credential = try f.assertion()
        var altered = f
        altered.clientDataOverrides = ["extra": "member"]
        credential.response.clientDataJSON = Base64URL.encode(altered.clientDataJSON(type: "webauthn.get"))
        #expect(failure(f, credential)?.code == "signature_invalid")
    }

    @Test("step 23: a counter that does not grow is refused, or reported when the policy says so")
    func step23() throws {
        var f = Fabricator()
        f.signCount = 7
        let error = failure(f, record: try f.storedCredential(signCount: 7))
        #expect(error?.code == "sign_count_regression")
        #expect(error?.step == "§7.2 step 23")
        #expect(failure(f, record: try f.storedCredential(signCount: 9))?.code == "sign_count_regression")

        var rp = Fabricator.relyingParty
        rp.signCountPolicy = .report
        let reported = try verify(f, record: try f.storedCredential(signCount: 9), rp: rp)
        #expect(reported.possibleClone)
        #expect(reported.signCount == 9)

        f.signCount = 0
        let synced = try verify(f, record: try f.storedCredential(signCount: 0))
        #expect(!synced.possibleClone, "both counters zero: the authenticator has no counter")
        #expect(failure(f, record: try f.storedCredential(signCount: 3))?.code == "sign_count_regression")
    }

    @Test("step 23, a migrated passkey: a synced one (BE=1) that had counted and reports 0 is reset, not refused; a device-bound one is still refused")
    func migratedPasskeyCounter() throws {
        var f = Fabricator()
        f.flags = 0x01 | 0x04 | 0x08 | 0x10
        f.signCount = 0
        let moved = try verify(f, record: try f.storedCredential(signCount: 41, backupEligible: true))
        #expect(moved.counterReset && moved.signCount == 0 && !moved.possibleClone)
        f.signCount = 3
        #expect(failure(f, record: try f.storedCredential(signCount: 41, backupEligible: true))?.code == "sign_count_regression",
                "only 0 means \"moved to a provider that does not count\"; going back to 3 is still a possible clone")
        f.signCount = 42
        #expect(try !verify(f, record: try f.storedCredential(signCount: 41, backupEligible: true)).counterReset)
        var bound = Fabricator()
        bound.signCount = 0
        #expect(failure(bound, record: try bound.storedCredential(signCount: 41, backupEligible: false))?.code == "sign_count_regression")
    }

    @Test("malformed authenticator data: truncated, trailing bytes, extensions flag without extensions")
    func malformedAuthenticatorData() throws {
        let f = Fabricator()
        let good = f.authenticatorData(attested: false)
        let cases: [[UInt8]] = [
            Array(good.prefix(36)),
            [],
            good + [0x00],
            { var b = good; b[32] |= 0x80; return b }(),
            { var b = good; b[32] |= 0x80; return b + [0xa1, 0x01] }(),
        ]
        for authData in cases {
            let credential = try f.assertion(authData: authData)
            let error = failure(f, credential)
            #expect(error?.code == "authenticator_data_malformed", "\(authData.count) bytes: \(String(describing: error))")
        }
        // Extensions present and flagged: accepted.
        var withExtensions = good
        withExtensions[32] |= 0x80
        withExtensions += CBOREncoder().encode(.map(CBORMap([(.text("credProtect"), .unsigned(2))]) ?? CBORMap()))
        #expect(try verify(f, try f.assertion(authData: withExtensions)).credentialId == f.credentialId)
    }
}
