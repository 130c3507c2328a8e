import LatchkeyAppleAuthenticator
import LatchkeyClient
import SoftAuthenticator
import Testing
import WebAuthn

/// SoftAuthenticator playing the platform: it gets only what AuthenticationServices would get (the plain
/// request values) and answers only what AuthenticationServices would answer (raw bytes), so the mapping
/// on both sides is held to a real ceremony that the WebAuthn verifiers check.
struct SoftPlatform: PlatformPasskeyProvider {
    struct NotBase64URL: Error {}

    let soft: SoftAuthenticator
    /// The origin the platform puts in clientDataJSON: the app's associated domain.
    let origin: String

    func register(_ request: PlatformRegistrationRequest) async throws -> PlatformRegistration {
        let options = PublicKeyCredentialCreationOptionsJSON(
            rp: RelyingPartyEntityJSON(id: request.relyingPartyIdentifier, name: request.relyingPartyIdentifier),
            user: UserEntityJSON(id: Base64URL.encode(request.userID), name: request.userName, displayName: request.userDisplayName),
            challenge: Base64URL.encode(request.challenge),
            // The platform makes ES256 passkeys, always discoverable.
            pubKeyCredParams: [CredentialParametersJSON(alg: COSEAlgorithm.es256.rawValue)],
            excludeCredentials: request.excludedCredentialIDs.map { CredentialDescriptorJSON(id: Base64URL.encode($0)) },
            authenticatorSelection: AuthenticatorSelectionJSON(residentKey: "required", userVerification: request.userVerification.rawValue),
            attestation: request.attestation.rawValue)
        let json = try soft.makeCredential(options, origin: origin)
        return PlatformRegistration(
            credentialID: try raw(json.rawId), rawClientDataJSON: try raw(json.response.clientDataJSON),
            rawAttestationObject: try raw(json.response.attestationObject), attachment: .platform)
    }

    func authenticate(_ request: PlatformAssertionRequest) async throws -> PlatformAssertion {
        let options = PublicKeyCredentialRequestOptionsJSON(
            challenge: Base64URL.encode(request.challenge), rpId: request.relyingPartyIdentifier,
            allowCredentials: request.allowedCredentialIDs.map { CredentialDescriptorJSON(id: Base64URL.encode($0)) },
            userVerification: request.userVerification.rawValue)
        let json = try soft.getAssertion(options, origin: origin)
        return PlatformAssertion(
            credentialID: try raw(json.rawId), rawClientDataJSON: try raw(json.response.clientDataJSON),
            rawAuthenticatorData: try raw(json.response.authenticatorData), signature: try raw(json.response.signature),
            userID: try json.response.userHandle.map(raw), attachment: .platform)
    }

    private func raw(_ text: String) throws -> [UInt8] {
        guard let bytes = Base64URL.decode(text) else { throw NotBase64URL() }
        return bytes
    }
}

/// A provider whose answers are fixed, to see what the authenticator makes of bad ones.
struct FixedPlatform: PlatformPasskeyProvider {
    var registration = PlatformRegistration(credentialID: [1], rawClientDataJSON: [2], rawAttestationObject: nil)
    var failure: ClientError?

    func register(_ request: PlatformRegistrationRequest) async throws -> PlatformRegistration {
        if let failure { throw failure }
        return registration
    }

    func authenticate(_ request: PlatformAssertionRequest) async throws -> PlatformAssertion {
        if let failure { throw failure }
        return PlatformAssertion(credentialID: [1], rawClientDataJSON: [2], rawAuthenticatorData: [3], signature: nil, userID: [4])
    }
}

@Suite("PlatformAuthenticator with SoftAuthenticator as the platform, checked by the WebAuthn verifiers")
struct SoftPlatformRoundTripTests {
    let origin = "https://example.com"
    let relyingParty = RelyingParty(id: "example.com", name: "Example", origins: ["https://example.com"])

    @Test("register then log in discoverably, as Latchkey's server asks", arguments: ["none", "direct"])
    func registerThenLogIn(attestation: String) async throws {
        let soft = SoftAuthenticator(store: InMemoryCredentialStore())
        let authenticator: any Authenticator = PlatformAuthenticator(provider: SoftPlatform(soft: soft, origin: origin))
        let userHandle = (0..<64).map { UInt8($0) }
        let challenge = (0..<32).map { UInt8(255 - $0) }

        let created = try await authenticator.create(
            serverCreationOptions(challenge: challenge, userHandle: userHandle, attestation: attestation), origin: origin)
        let registered = try await RegistrationVerifier(relyingParty: relyingParty).verify(
            created, expectedChallenge: challenge, allowedAlgorithms: [.es256])
        #expect(registered.credentialId == Base64URL.decode(created.rawId))
        #expect(registered.userVerified)
        #expect(registered.attestationFormat == (attestation == "direct" ? "packed" : "none"))
        #expect(registered.residentKey == true)
        #expect(registered.authenticatorAttachment == "platform")

        let loginChallenge: [UInt8] = Array(repeating: 0x5a, count: 32)
        let options = PublicKeyCredentialRequestOptionsJSON(
            challenge: Base64URL.encode(loginChallenge), timeout: 300_000, rpId: "example.com", allowCredentials: [], userVerification: "required")
        let assertion = try await authenticator.get(options, origin: origin)
        let stored = try StoredCredential(
            id: registered.credentialId, publicKeyCOSE: registered.publicKey, signCount: registered.signCount,
            backupEligible: registered.backupEligible, userHandle: userHandle)
        let loggedIn = try AuthenticationVerifier(relyingParty: relyingParty).verify(
            assertion, expectedChallenge: loginChallenge, storedCredential: stored)
        #expect(loggedIn.credentialId == registered.credentialId)
        #expect(loggedIn.userHandle == userHandle)
        #expect(loggedIn.userVerified)
    }

    @Test("excluded credential ids reach the platform, which refuses a second passkey")
    func excluded() async throws {
        let soft = SoftAuthenticator(store: InMemoryCredentialStore())
        let authenticator = PlatformAuthenticator(provider: SoftPlatform(soft: soft, origin: origin))
        let first = try await authenticator.create(serverCreationOptions(), origin: origin)
        let firstId = try #require(Base64URL.decode(first.rawId))
        await #expect(throws: SoftAuthenticatorError.credentialExcluded) {
            try await authenticator.create(serverCreationOptions(exclude: [[9, 9], firstId]), origin: origin)
        }
    }

    @Test("allowed credential ids reach the platform")
    func allowed() async throws {
        let soft = SoftAuthenticator(store: InMemoryCredentialStore())
        let authenticator = PlatformAuthenticator(provider: SoftPlatform(soft: soft, origin: origin))
        _ = try await authenticator.create(serverCreationOptions(), origin: origin)
        let options = PublicKeyCredentialRequestOptionsJSON(
            challenge: "AQID", rpId: "example.com", allowCredentials: [CredentialDescriptorJSON(id: Base64URL.encode([1, 2, 3]))])
        await #expect(throws: SoftAuthenticatorError.noCredentials(rpId: "example.com")) {
            try await authenticator.get(options, origin: origin)
        }
    }

    @Test("bad options are the server's fault; an incomplete platform answer is a refusal; provider errors pass through")
    func errors() async throws {
        let authenticator = PlatformAuthenticator(provider: FixedPlatform())
        var options = serverCreationOptions()
        options.challenge = "***"
        await #expect(throws: ClientError.invalidResponse("registration options: challenge is not base64url")) {
            try await authenticator.create(options, origin: origin)
        }
        await #expect(throws: ClientError.invalidResponse("login options: challenge is missing or empty")) {
            try await authenticator.get(PublicKeyCredentialRequestOptionsJSON(challenge: "", rpId: "example.com"), origin: origin)
        }
        await #expect(throws: ClientError.authenticatorRefused("the platform's registration is incomplete: rawAttestationObject is missing or empty")) {
            try await authenticator.create(serverCreationOptions(), origin: origin)
        }
        await #expect(throws: ClientError.authenticatorRefused("the platform's assertion is incomplete: signature is missing or empty")) {
            try await authenticator.get(PublicKeyCredentialRequestOptionsJSON(challenge: "AQID", rpId: "example.com"), origin: origin)
        }
        let cancelled = AuthorizationFailure.clientError(code: 1001, message: "cancelled")
        let refusing = PlatformAuthenticator(provider: FixedPlatform(failure: cancelled))
        await #expect(throws: cancelled) { try await refusing.create(serverCreationOptions(), origin: origin) }
    }
}
