import Foundation
import Testing
import WebAuthn
import X509
@testable import SoftAuthenticator

/// Whatever the software authenticator makes, Latchkey's own verifier accepts — for every combination
/// of algorithm × attestation × backup style × discoverable/allow-list login.
@Suite("SoftAuthenticator round trips")
struct RoundTripTests {
    static let origin = "https://login.example.com"
    static let relyingParty = RelyingParty(id: "example.com", name: "Example", origins: [origin])

    struct Combination: CustomTestStringConvertible, Sendable {
        let algorithm: COSEAlgorithm
        let attestation: SoftAuthenticator.AttestationMode
        let style: SoftAuthenticator.BackupStyle
        let discoverable: Bool
        var testDescription: String { "\(algorithm.name) \(attestation.rawValue) \(style.rawValue) \(discoverable ? "discoverable" : "allow-list")" }
    }

    static let combinations: [Combination] = [COSEAlgorithm.es256, .edDSA].flatMap { alg in
        SoftAuthenticator.AttestationMode.allCases.flatMap { att in
            SoftAuthenticator.BackupStyle.allCases.flatMap { style in
                [true, false].map { Combination(algorithm: alg, attestation: att, style: style, discoverable: $0) }
            }
        }
    }

    static func creationOptions(
        algorithms: [Int], attestation: String = "direct", residentKey: String = "required", challenge: [UInt8],
        userHandle: [UInt8] = Array("account-1".utf8), exclude: [String] = [], userVerification: String = "required"
    ) -> PublicKeyCredentialCreationOptionsJSON {
        PublicKeyCredentialCreationOptionsJSON(
            rp: RelyingPartyEntityJSON(id: "example.com", name: "Example"),
            user: UserEntityJSON(id: Base64URL.encode(userHandle), name: "ada", displayName: "Ada"),
            challenge: Base64URL.encode(challenge),
            pubKeyCredParams: algorithms.map { CredentialParametersJSON(alg: $0) },
            excludeCredentials: exclude.map { CredentialDescriptorJSON(id: $0) },
            authenticatorSelection: AuthenticatorSelectionJSON(residentKey: residentKey, userVerification: userVerification),
            attestation: attestation, extensions: ExtensionInputsJSON(credProps: true))
    }

    static func requestOptions(challenge: [UInt8], allow: [String] = [], userVerification: String = "required") -> PublicKeyCredentialRequestOptionsJSON {
        PublicKeyCredentialRequestOptionsJSON(
            challenge: Base64URL.encode(challenge), rpId: "example.com",
            allowCredentials: allow.map { CredentialDescriptorJSON(id: $0) }, userVerification: userVerification)
    }

    static func challenge() -> [UInt8] { (0..<32).map { _ in UInt8.random(in: 0...255) } }

    @Test("registration and two logins verify", arguments: combinations)
    func roundTrip(_ c: Combination) async throws {
        let authenticator = SoftAuthenticator(store: InMemoryCredentialStore(), backupStyle: c.style, attestationMode: c.attestation)
        var rp = Self.relyingParty
        if c.attestation == .packed {
            rp.trustAnchors.add(try TrustAnchors.certificates(fromPEM: try authenticator.attestationRootPEM()), forFormat: "packed")
        }
        let registrationChallenge = Self.challenge()
        let created = try authenticator.makeCredential(
            Self.creationOptions(algorithms: [c.algorithm.rawValue, -7], residentKey: c.discoverable ? "required" : "discouraged",
                                 challenge: registrationChallenge),
            origin: Self.origin)
        let registration = try await RegistrationVerifier(relyingParty: rp).verify(created, expectedChallenge: registrationChallenge)
        #expect(registration.publicKeyAlgorithm == c.algorithm)
        #expect(registration.attestationFormat == (c.attestation == .none ? "none" : "packed"))
        #expect(registration.attestationType == [.none: .none, .self: .self, .packed: .basic][c.attestation])
        #expect(registration.trustPathVerified == (c.attestation == .packed))
        #expect(registration.backupEligible == (c.style == .synced))
        #expect(registration.backupState == (c.style == .synced))
        #expect(registration.userVerified)
        #expect(registration.residentKey == c.discoverable)
        #expect(registration.aaguid == SoftAuthenticator.aaguid)
        #expect(registration.credentialId.count >= 16)

        var signCount = registration.signCount
        for round in 1...2 {
            let loginChallenge = Self.challenge()
            let allow = c.discoverable ? [] : [created.id]
            let assertion = try authenticator.getAssertion(Self.requestOptions(challenge: loginChallenge, allow: allow), origin: Self.origin)
            let record = try StoredCredential(
                id: registration.credentialId, publicKeyCOSE: registration.publicKey, signCount: signCount,
                backupEligible: registration.backupEligible, userHandle: Array("account-1".utf8))
            let result = try AuthenticationVerifier(relyingParty: rp).verify(
                assertion, expectedChallenge: loginChallenge, storedCredential: record,
                allowCredentials: allow.compactMap(Base64URL.decode))
            #expect(!result.possibleClone)
            #expect(result.signCount == (c.style == .synced ? 0 : UInt32(round)))
            signCount = result.signCount
        }
    }

    @Test("every credential has its own id and key")
    func freshKeys() throws {
        let authenticator = SoftAuthenticator(store: InMemoryCredentialStore(), attestationMode: .none)
        for i in 0..<3 {
            _ = try authenticator.makeCredential(
                Self.creationOptions(algorithms: [-7], challenge: Self.challenge(), userHandle: Array("user-\(i)".utf8)), origin: Self.origin)
        }
        let passkeys = try authenticator.passkeys()
        #expect(passkeys.count == 3)
        #expect(Set(passkeys.map(\.credentialId)).count == 3)
        #expect(Set(passkeys.map(\.privateKey)).count == 3)
    }

    @Test("pubKeyCredParams order decides the algorithm")
    func algorithmPreference() throws {
        let authenticator = SoftAuthenticator(store: InMemoryCredentialStore(), attestationMode: .none)
        let ed = try authenticator.makeCredential(Self.creationOptions(algorithms: [-257, -8, -7], challenge: Self.challenge()), origin: Self.origin)
        #expect(ed.response.publicKeyAlgorithm == -8)
        let es = try authenticator.makeCredential(
            Self.creationOptions(algorithms: [-7, -8], challenge: Self.challenge(), userHandle: [9]), origin: Self.origin)
        #expect(es.response.publicKeyAlgorithm == -7)
    }

    @Test("a discoverable login with several candidates asks the chooser; the default is the most recently used")
    func chooser() throws {
        let clock = Clock()
        let authenticator = SoftAuthenticator(store: InMemoryCredentialStore(), attestationMode: .none, now: { clock.tick() })
        let first = try authenticator.makeCredential(Self.creationOptions(algorithms: [-7], challenge: Self.challenge(), userHandle: [1]), origin: Self.origin)
        let second = try authenticator.makeCredential(Self.creationOptions(algorithms: [-7], challenge: Self.challenge(), userHandle: [2]), origin: Self.origin)
        #expect(try authenticator.getAssertion(Self.requestOptions(challenge: Self.challenge()), origin: Self.origin).id == second.id)
        let chosen = try authenticator.getAssertion(Self.requestOptions(challenge: Self.challenge()), origin: Self.origin) { candidates in
            candidates.first { $0.credentialId == first.id }
        }
        #expect(chosen.id == first.id)
        #expect(try authenticator.getAssertion(Self.requestOptions(challenge: Self.challenge()), origin: Self.origin).id == first.id)
        #expect(throws: SoftAuthenticatorError.cancelled) {
            try authenticator.getAssertion(Self.requestOptions(challenge: Self.challenge()), origin: Self.origin) { _ in nil }
        }
    }
}

/// A clock that moves one second per reading, so "most recently used" is well defined in tests.
final class Clock: @unchecked Sendable {
    private let lock = NSLock()
    private var current = Date(timeIntervalSince1970: 1_700_000_000)
    func tick() -> Date {
        lock.withLock {
            current += 1
            return current
        }
    }
}
