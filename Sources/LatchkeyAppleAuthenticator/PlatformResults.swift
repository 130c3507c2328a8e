import WebAuthn

/// `ASAuthorizationPublicKeyCredentialAttachment`: where the passkey lives, reported by the platform.
public enum PlatformAttachment: String, Sendable, Equatable {
    /// This device (iCloud Keychain or a credential-provider extension on it).
    case platform
    /// Another device: a phone over hybrid transport, or a security key.
    case crossPlatform = "cross-platform"
}

/// The values an `ASAuthorizationPlatformPublicKeyCredentialRegistration` carries, as plain bytes, so
/// that the mapping to `RegistrationResponseJSON` is ordinary code the Linux tests run.
public struct PlatformRegistration: Sendable, Equatable {
    public var credentialID: [UInt8]
    public var rawClientDataJSON: [UInt8]
    /// Optional in AuthenticationServices; the server needs it, so its absence is an error.
    public var rawAttestationObject: [UInt8]?
    /// Reported from iOS 16.6 and macOS 13.5; nil before.
    public var attachment: PlatformAttachment?

    public init(credentialID: [UInt8], rawClientDataJSON: [UInt8], rawAttestationObject: [UInt8]?, attachment: PlatformAttachment? = nil) {
        self.credentialID = credentialID
        self.rawClientDataJSON = rawClientDataJSON
        self.rawAttestationObject = rawAttestationObject
        self.attachment = attachment
    }
}

/// The values an `ASAuthorizationPlatformPublicKeyCredentialAssertion` carries, as plain bytes (its
/// `rawAuthenticatorData`, `signature` and `userID` are implicitly unwrapped in Swift, so nil is possible).
public struct PlatformAssertion: Sendable, Equatable {
    public var credentialID: [UInt8]
    public var rawClientDataJSON: [UInt8]
    public var rawAuthenticatorData: [UInt8]?
    public var signature: [UInt8]?
    /// The user handle stored with the passkey; Latchkey's discoverable login needs it.
    public var userID: [UInt8]?
    public var attachment: PlatformAttachment?

    public init(
        credentialID: [UInt8], rawClientDataJSON: [UInt8], rawAuthenticatorData: [UInt8]?, signature: [UInt8]?,
        userID: [UInt8]?, attachment: PlatformAttachment? = nil
    ) {
        self.credentialID = credentialID
        self.rawClientDataJSON = rawClientDataJSON
        self.rawAuthenticatorData = rawAuthenticatorData
        self.signature = signature
        self.userID = userID
        self.attachment = attachment
    }
}

extension PlatformRegistrationRequest {
    /// The platform's answer to this request as the `RegistrationResponseJSON` the server verifies
    /// (what `PublicKeyCredential.toJSON()` gives in a browser). The server trusts none of it: it
    /// verifies clientDataJSON and the attestation object itself.
    public func response(from registration: PlatformRegistration) throws(PlatformMappingError) -> RegistrationResponseJSON {
        let credentialID = try Bytes.required(registration.credentialID, member: "credentialID")
        let clientData = try Bytes.required(registration.rawClientDataJSON, member: "rawClientDataJSON")
        let attestationObject = try Bytes.required(registration.rawAttestationObject, member: "rawAttestationObject")
        let id = Base64URL.encode(credentialID)
        // Platform passkeys are discoverable credentials, so credProps (when asked for) says rk: true.
        let credProps = credentialPropertiesRequested ? ClientExtensionResultsJSON.CredentialProperties(rk: true) : nil
        return RegistrationResponseJSON(
            id: id, rawId: id,
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: Base64URL.encode(clientData), attestationObject: Base64URL.encode(attestationObject)),
            authenticatorAttachment: registration.attachment?.rawValue,
            clientExtensionResults: ClientExtensionResultsJSON(credProps: credProps))
    }
}

extension PlatformAssertionRequest {
    /// The platform's answer to this request as the `AuthenticationResponseJSON` the server verifies.
    /// An empty `userID` becomes an absent `userHandle`, as WebAuthn's null user handle.
    public func response(from assertion: PlatformAssertion) throws(PlatformMappingError) -> AuthenticationResponseJSON {
        let credentialID = try Bytes.required(assertion.credentialID, member: "credentialID")
        let clientData = try Bytes.required(assertion.rawClientDataJSON, member: "rawClientDataJSON")
        let authenticatorData = try Bytes.required(assertion.rawAuthenticatorData, member: "rawAuthenticatorData")
        let signature = try Bytes.required(assertion.signature, member: "signature")
        let userHandle = assertion.userID.flatMap { $0.isEmpty ? nil : Base64URL.encode($0) }
        let id = Base64URL.encode(credentialID)
        return AuthenticationResponseJSON(
            id: id, rawId: id,
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: Base64URL.encode(clientData), authenticatorData: Base64URL.encode(authenticatorData),
                signature: Base64URL.encode(signature), userHandle: userHandle),
            authenticatorAttachment: assertion.attachment?.rawValue)
    }
}
