import LatchkeyAppleAuthenticator
import Testing
import WebAuthn

/// Creation options shaped as Latchkey's server sends them (CeremonyService.creationOptions).
func serverCreationOptions(
    challenge: [UInt8] = Array(1...32), userHandle: [UInt8] = Array(repeating: 7, count: 64), rpId: String? = "example.com",
    exclude: [[UInt8]] = [], userVerification: String = "required", attestation: String = "none"
) -> PublicKeyCredentialCreationOptionsJSON {
    PublicKeyCredentialCreationOptionsJSON(
        rp: RelyingPartyEntityJSON(id: rpId, name: "Example"),
        user: UserEntityJSON(id: Base64URL.encode(userHandle), name: "Ada", displayName: "Ada Lovelace"),
        challenge: Base64URL.encode(challenge),
        pubKeyCredParams: [CredentialParametersJSON(alg: -8), CredentialParametersJSON(alg: -7), CredentialParametersJSON(alg: -257)],
        timeout: 300_000, excludeCredentials: exclude.map { CredentialDescriptorJSON(id: Base64URL.encode($0), transports: ["internal"]) },
        authenticatorSelection: AuthenticatorSelectionJSON(residentKey: "required", requireResidentKey: true, userVerification: userVerification),
        attestation: attestation, extensions: ExtensionInputsJSON(credProps: true))
}

@Suite("Server options → AuthenticationServices request values")
struct PlatformRequestTests {
    @Test("creation options map member for member")
    func creation() throws {
        let options = serverCreationOptions(exclude: [[1, 2, 3], [4, 5]], attestation: "direct")
        let request = try PlatformRegistrationRequest(options: options, origin: "https://example.com")
        #expect(request == PlatformRegistrationRequest(
            relyingPartyIdentifier: "example.com", challenge: Array(1...32), userName: "Ada", userDisplayName: "Ada Lovelace",
            userID: Array(repeating: 7, count: 64), userVerification: .required, attestation: .direct,
            excludedCredentialIDs: [[1, 2, 3], [4, 5]], credentialPropertiesRequested: true))
    }

    @Test("absent or unknown enumeration values take WebAuthn's defaults")
    func defaults() throws {
        var options = serverCreationOptions(userVerification: "sometimes", attestation: "notarised")
        options.extensions = nil
        options.excludeCredentials = nil
        let request = try PlatformRegistrationRequest(options: options, origin: "https://example.com")
        #expect(request.userVerification == .preferred)
        #expect(request.attestation == PlatformAttestation.none)
        #expect(request.excludedCredentialIDs.isEmpty)
        #expect(!request.credentialPropertiesRequested)
        options.authenticatorSelection = nil
        options.attestation = nil
        let bare = try PlatformRegistrationRequest(options: options, origin: "https://example.com")
        #expect(bare.userVerification == .preferred)
        #expect(bare.attestation == PlatformAttestation.none)
    }

    @Test("an empty pubKeyCredParams means ES256 and RS256; descriptors of other types are skipped")
    func algorithmsAndTypes() throws {
        var options = serverCreationOptions()
        options.pubKeyCredParams = []
        options.excludeCredentials = [CredentialDescriptorJSON(id: "not base64url!", type: "future-type"), CredentialDescriptorJSON(id: "AQI")]
        let request = try PlatformRegistrationRequest(options: options, origin: "https://example.com")
        #expect(request.excludedCredentialIDs == [[1, 2]])
    }

    @Test("the RP ID defaults to the origin's host")
    func rpIdFromOrigin() throws {
        let request = try PlatformRegistrationRequest(options: serverCreationOptions(rpId: nil), origin: "https://Login.Example.com:8443/path")
        #expect(request.relyingPartyIdentifier == "login.example.com")
        let login = try PlatformAssertionRequest(options: PublicKeyCredentialRequestOptionsJSON(challenge: "AQID"), origin: "http://localhost:8080")
        #expect(login.relyingPartyIdentifier == "localhost")
    }

    @Test("request options map member for member; discoverable login has no allowed ids")
    func request() throws {
        let discoverable = PublicKeyCredentialRequestOptionsJSON(
            challenge: Base64URL.encode([9, 9, 9]), timeout: 300_000, rpId: "example.com", allowCredentials: [], userVerification: "required")
        #expect(try PlatformAssertionRequest(options: discoverable, origin: "https://example.com") == PlatformAssertionRequest(
            relyingPartyIdentifier: "example.com", challenge: [9, 9, 9], userVerification: .required, allowedCredentialIDs: []))
        var named = discoverable
        named.allowCredentials = [CredentialDescriptorJSON(id: Base64URL.encode([1])), CredentialDescriptorJSON(id: Base64URL.encode([2, 3]))]
        named.userVerification = nil
        let request = try PlatformAssertionRequest(options: named, origin: "https://example.com")
        #expect(request.allowedCredentialIDs == [[1], [2, 3]])
        #expect(request.userVerification == .preferred)
    }

    @Test("bad creation options are typed errors naming the member")
    func badCreationOptions() {
        let origin = "https://example.com"
        var options = serverCreationOptions()
        options.challenge = "AQID+/"
        #expect(throws: PlatformMappingError.notBase64URL(member: "challenge")) { try PlatformRegistrationRequest(options: options, origin: origin) }
        options.challenge = ""
        #expect(throws: PlatformMappingError.missing(member: "challenge")) { try PlatformRegistrationRequest(options: options, origin: origin) }

        options = serverCreationOptions(userHandle: Array(repeating: 1, count: 65))
        #expect(throws: PlatformMappingError.userHandleLength(65)) { try PlatformRegistrationRequest(options: options, origin: origin) }
        options = serverCreationOptions(userHandle: [])
        #expect(throws: PlatformMappingError.userHandleLength(0)) { try PlatformRegistrationRequest(options: options, origin: origin) }
        options = serverCreationOptions()
        options.user.id = "a b"
        #expect(throws: PlatformMappingError.notBase64URL(member: "user.id")) { try PlatformRegistrationRequest(options: options, origin: origin) }
        options = serverCreationOptions()
        options.user.name = ""
        #expect(throws: PlatformMappingError.missing(member: "user.name")) { try PlatformRegistrationRequest(options: options, origin: origin) }

        options = serverCreationOptions()
        options.excludeCredentials = [CredentialDescriptorJSON(id: "AQI"), CredentialDescriptorJSON(id: "AQI=x")]
        #expect(throws: PlatformMappingError.notBase64URL(member: "excludeCredentials[1].id")) {
            try PlatformRegistrationRequest(options: options, origin: origin)
        }

        options = serverCreationOptions()
        options.pubKeyCredParams = [CredentialParametersJSON(alg: -8), CredentialParametersJSON(alg: -257)]
        #expect(throws: PlatformMappingError.es256NotOffered([-8, -257])) { try PlatformRegistrationRequest(options: options, origin: origin) }

        options = serverCreationOptions(rpId: nil)
        #expect(throws: PlatformMappingError.noRelyingPartyIdentifier(origin: "ios:bundle-id:com.example")) {
            try PlatformRegistrationRequest(options: options, origin: "ios:bundle-id:com.example")
        }
        options = serverCreationOptions(rpId: "")
        #expect(throws: PlatformMappingError.missing(member: "rp.id")) { try PlatformRegistrationRequest(options: options, origin: origin) }
    }

    @Test("bad request options are typed errors naming the member")
    func badRequestOptions() {
        let origin = "https://example.com"
        #expect(throws: PlatformMappingError.notBase64URL(member: "challenge")) {
            try PlatformAssertionRequest(options: PublicKeyCredentialRequestOptionsJSON(challenge: "%%%", rpId: "example.com"), origin: origin)
        }
        #expect(throws: PlatformMappingError.missing(member: "allowCredentials[0].id")) {
            try PlatformAssertionRequest(
                options: PublicKeyCredentialRequestOptionsJSON(challenge: "AQID", rpId: "example.com", allowCredentials: [CredentialDescriptorJSON(id: "")]),
                origin: origin)
        }
        #expect(throws: PlatformMappingError.noRelyingPartyIdentifier(origin: "https://[::1]:8080")) {
            try PlatformAssertionRequest(options: PublicKeyCredentialRequestOptionsJSON(challenge: "AQID"), origin: "https://[::1]:8080")
        }
    }
}
