import LatchkeyAppleAuthenticator
import Testing
import WebAuthn

@Suite("AuthenticationServices results → WebAuthn JSON")
struct PlatformResultTests {
    let registrationRequest = PlatformRegistrationRequest(
        relyingPartyIdentifier: "example.com", challenge: [1], userName: "Ada", userDisplayName: "Ada", userID: [2],
        credentialPropertiesRequested: true)
    let assertionRequest = PlatformAssertionRequest(relyingPartyIdentifier: "example.com", challenge: [1])

    @Test("a registration becomes RegistrationResponseJSON")
    func registration() throws {
        let json = try registrationRequest.response(from: PlatformRegistration(
            credentialID: [0xfb, 0xff], rawClientDataJSON: Array("{}".utf8), rawAttestationObject: [0xa0], attachment: .platform))
        #expect(json.id == "-_8")
        #expect(json.rawId == "-_8")
        #expect(json.type == "public-key")
        #expect(json.response.clientDataJSON == "e30")
        #expect(json.response.attestationObject == "oA")
        #expect(json.authenticatorAttachment == "platform")
        #expect(json.clientExtensionResults.credProps?.rk == true)

        var plain = registrationRequest
        plain.credentialPropertiesRequested = false
        let quiet = try plain.response(from: PlatformRegistration(
            credentialID: [1], rawClientDataJSON: [2], rawAttestationObject: [3], attachment: .crossPlatform))
        #expect(quiet.clientExtensionResults.credProps == nil)
        #expect(quiet.authenticatorAttachment == "cross-platform")
    }

    @Test("an incomplete registration is a typed error naming the value")
    func incompleteRegistration() {
        #expect(throws: PlatformMappingError.missing(member: "rawAttestationObject")) {
            try registrationRequest.response(from: PlatformRegistration(credentialID: [1], rawClientDataJSON: [2], rawAttestationObject: nil))
        }
        #expect(throws: PlatformMappingError.missing(member: "rawAttestationObject")) {
            try registrationRequest.response(from: PlatformRegistration(credentialID: [1], rawClientDataJSON: [2], rawAttestationObject: []))
        }
        #expect(throws: PlatformMappingError.missing(member: "credentialID")) {
            try registrationRequest.response(from: PlatformRegistration(credentialID: [], rawClientDataJSON: [2], rawAttestationObject: [3]))
        }
        #expect(throws: PlatformMappingError.missing(member: "rawClientDataJSON")) {
            try registrationRequest.response(from: PlatformRegistration(credentialID: [1], rawClientDataJSON: [], rawAttestationObject: [3]))
        }
    }

    @Test("an assertion becomes AuthenticationResponseJSON; an empty user id is no user handle")
    func assertion() throws {
        let json = try assertionRequest.response(from: PlatformAssertion(
            credentialID: [1, 2], rawClientDataJSON: [3], rawAuthenticatorData: [4, 5, 6], signature: [7], userID: [8], attachment: .platform))
        #expect(json.id == "AQI")
        #expect(json.rawId == "AQI")
        #expect(json.response.clientDataJSON == "Aw")
        #expect(json.response.authenticatorData == "BAUG")
        #expect(json.response.signature == "Bw")
        #expect(json.response.userHandle == "CA")
        #expect(json.authenticatorAttachment == "platform")

        let anonymous = try assertionRequest.response(from: PlatformAssertion(
            credentialID: [1], rawClientDataJSON: [3], rawAuthenticatorData: [4], signature: [7], userID: []))
        #expect(anonymous.response.userHandle == nil)
        #expect(anonymous.authenticatorAttachment == nil)
        let absent = try assertionRequest.response(from: PlatformAssertion(
            credentialID: [1], rawClientDataJSON: [3], rawAuthenticatorData: [4], signature: [7], userID: nil))
        #expect(absent.response.userHandle == nil)
    }

    @Test("an incomplete assertion is a typed error naming the value")
    func incompleteAssertion() {
        #expect(throws: PlatformMappingError.missing(member: "rawAuthenticatorData")) {
            try assertionRequest.response(from: PlatformAssertion(
                credentialID: [1], rawClientDataJSON: [3], rawAuthenticatorData: nil, signature: [7], userID: [8]))
        }
        #expect(throws: PlatformMappingError.missing(member: "signature")) {
            try assertionRequest.response(from: PlatformAssertion(
                credentialID: [1], rawClientDataJSON: [3], rawAuthenticatorData: [4], signature: nil, userID: [8]))
        }
        #expect(throws: PlatformMappingError.missing(member: "credentialID")) {
            try assertionRequest.response(from: PlatformAssertion(
                credentialID: [], rawClientDataJSON: [3], rawAuthenticatorData: [4], signature: [7], userID: [8]))
        }
    }
}
