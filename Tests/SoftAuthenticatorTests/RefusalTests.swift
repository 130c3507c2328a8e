import Foundation
import Testing
import WebAuthn
@testable import SoftAuthenticator

@Suite("SoftAuthenticator refusals")
struct RefusalTests {
    typealias R = RoundTripTests

    @Test("user verification required but the switch is off")
    func uvRequired() throws {
        let authenticator = SoftAuthenticator(store: InMemoryCredentialStore(), userVerified: false)
        #expect(throws: SoftAuthenticatorError.userVerificationUnavailable) {
            try authenticator.makeCredential(R.creationOptions(algorithms: [-7], challenge: R.challenge()), origin: R.origin)
        }
        let created = try authenticator.makeCredential(
            R.creationOptions(algorithms: [-7], challenge: R.challenge(), userVerification: "preferred"), origin: R.origin)
        #expect(throws: SoftAuthenticatorError.userVerificationUnavailable) {
            try authenticator.getAssertion(R.requestOptions(challenge: R.challenge()), origin: R.origin)
        }
        let assertion = try authenticator.getAssertion(R.requestOptions(challenge: R.challenge(), userVerification: "preferred"), origin: R.origin)
        #expect(assertion.id == created.id)
        let authData = try #require(Base64URL.decode(assertion.response.authenticatorData))
        #expect(authData[32] & 0x04 == 0, "UV must not be claimed when the user was not verified")
    }

    @Test("RP ID that does not match the origin, and origins that are not secure contexts", arguments: [
        ("https://example.com.evil.org", "example.com"), ("https://evil-example.com", "example.com"),
        ("https://example.com", "login.example.com"), ("https://example.com", "com"),
        ("http://example.com", "example.com"), ("not a url", "example.com"), ("https://192.168.1.2", "168.1.2"),
    ])
    func rpIdMismatch(origin: String, rpId: String) {
        let authenticator = SoftAuthenticator(store: InMemoryCredentialStore())
        var options = R.creationOptions(algorithms: [-7], challenge: R.challenge())
        options.rp.id = rpId
        #expect(throws: SoftAuthenticatorError.self) { try authenticator.makeCredential(options, origin: origin) }
        #expect(throws: SoftAuthenticatorError.self) {
            var request = R.requestOptions(challenge: R.challenge())
            request.rpId = rpId
            return try authenticator.getAssertion(request, origin: origin)
        }
    }

    @Test("acting as an Android app: the client data carries the app's origin and the requested RP ID is used; a malformed app origin or none is refused (issue 35)")
    func androidApp() throws {
        let authenticator = SoftAuthenticator(store: InMemoryCredentialStore(), attestationMode: .none)
        let origin = "android:apk-key-hash:" + Base64URL.encode(Array(0..<32))
        let created = try authenticator.makeCredential(R.creationOptions(algorithms: [-7], challenge: R.challenge()), origin: origin)
        let clientData = try #require(Base64URL.decode(created.response.clientDataJSON))
        #expect(try CollectedClientData(bytes: clientData).origin == origin)
        #expect(try authenticator.passkeys().first?.rpId == R.creationOptions(algorithms: [-7], challenge: []).rp.id)
        let assertion = try authenticator.getAssertion(R.requestOptions(challenge: R.challenge()), origin: origin)
        #expect(try CollectedClientData(bytes: try #require(Base64URL.decode(assertion.response.clientDataJSON))).origin == origin)
        var noRP = R.creationOptions(algorithms: [-7], challenge: R.challenge())
        noRP.rp.id = nil
        for (options, bad) in [(noRP, origin), (R.creationOptions(algorithms: [-7], challenge: R.challenge()), "android:apk-key-hash:short"),
                               (R.creationOptions(algorithms: [-7], challenge: R.challenge()), "android:apk-key-hash:" + String(repeating: "+", count: 43))] {
            #expect(throws: SoftAuthenticatorError.invalidOrigin(bad)) { try authenticator.makeCredential(options, origin: bad) }
        }
    }

    @Test("localhost over http is a secure context, and the RP ID defaults to the origin's host")
    func localhost() throws {
        let authenticator = SoftAuthenticator(store: InMemoryCredentialStore(), attestationMode: .none)
        var options = R.creationOptions(algorithms: [-7], challenge: R.challenge())
        options.rp.id = nil
        _ = try authenticator.makeCredential(options, origin: "http://localhost:8080")
        #expect(try authenticator.passkeys().first?.rpId == "localhost")
    }

    @Test("an excluded credential is not created twice")
    func excluded() throws {
        let authenticator = SoftAuthenticator(store: InMemoryCredentialStore(), attestationMode: .none)
        let first = try authenticator.makeCredential(R.creationOptions(algorithms: [-7], challenge: R.challenge()), origin: R.origin)
        #expect(throws: SoftAuthenticatorError.credentialExcluded) {
            try authenticator.makeCredential(
                R.creationOptions(algorithms: [-7], challenge: R.challenge(), userHandle: [7], exclude: [first.id]), origin: R.origin)
        }
        #expect(try authenticator.passkeys().count == 1)
    }

    @Test("no supported algorithm")
    func noAlgorithm() {
        let authenticator = SoftAuthenticator(store: InMemoryCredentialStore())
        #expect(throws: SoftAuthenticatorError.noSupportedAlgorithm([-257, -37])) {
            try authenticator.makeCredential(R.creationOptions(algorithms: [-257, -37], challenge: R.challenge()), origin: R.origin)
        }
    }

    @Test("unknown credential in allowCredentials, and no passkey for the RP")
    func unknownCredential() throws {
        let authenticator = SoftAuthenticator(store: InMemoryCredentialStore(), attestationMode: .none)
        #expect(throws: SoftAuthenticatorError.noCredentials(rpId: "example.com")) {
            try authenticator.getAssertion(R.requestOptions(challenge: R.challenge()), origin: R.origin)
        }
        _ = try authenticator.makeCredential(R.creationOptions(algorithms: [-7], challenge: R.challenge()), origin: R.origin)
        #expect(throws: SoftAuthenticatorError.noCredentials(rpId: "example.com")) {
            try authenticator.getAssertion(R.requestOptions(challenge: R.challenge(), allow: [Base64URL.encode([1, 2, 3])]), origin: R.origin)
        }
    }

    @Test("a non-discoverable credential is not offered to a discoverable login")
    func nonDiscoverable() throws {
        let authenticator = SoftAuthenticator(store: InMemoryCredentialStore(), attestationMode: .none)
        _ = try authenticator.makeCredential(R.creationOptions(algorithms: [-7], residentKey: "discouraged", challenge: R.challenge()), origin: R.origin)
        #expect(throws: SoftAuthenticatorError.noCredentials(rpId: "example.com")) {
            try authenticator.getAssertion(R.requestOptions(challenge: R.challenge()), origin: R.origin)
        }
    }

    @Test("bad challenge or user id in the options")
    func badOptions() {
        let authenticator = SoftAuthenticator(store: InMemoryCredentialStore())
        var options = R.creationOptions(algorithms: [-7], challenge: R.challenge())
        options.challenge = "***"
        #expect(throws: SoftAuthenticatorError.self) { try authenticator.makeCredential(options, origin: R.origin) }
        options = R.creationOptions(algorithms: [-7], challenge: R.challenge(), userHandle: [UInt8](repeating: 1, count: 65))
        #expect(throws: SoftAuthenticatorError.self) { try authenticator.makeCredential(options, origin: R.origin) }
    }
}
