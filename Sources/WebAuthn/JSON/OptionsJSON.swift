/// `PublicKeyCredentialRpEntity`.
public struct RelyingPartyEntityJSON: Codable, Sendable, Equatable {
    public var id: String?
    public var name: String
    public init(id: String?, name: String) {
        self.id = id
        self.name = name
    }
}

/// `PublicKeyCredentialUserEntityJSON`: the user handle travels as base64url.
public struct UserEntityJSON: Codable, Sendable, Equatable {
    public var id: Base64URLString
    public var name: String
    public var displayName: String
    public init(id: Base64URLString, name: String, displayName: String) {
        self.id = id
        self.name = name
        self.displayName = displayName
    }
}

/// `PublicKeyCredentialParameters`.
public struct CredentialParametersJSON: Codable, Sendable, Equatable {
    public var type: String
    public var alg: Int
    public init(type: String = "public-key", alg: Int) {
        self.type = type
        self.alg = alg
    }
}

/// `PublicKeyCredentialDescriptorJSON`.
public struct CredentialDescriptorJSON: Codable, Sendable, Equatable {
    public var id: Base64URLString
    public var type: String
    public var transports: [String]?
    public init(id: Base64URLString, type: String = "public-key", transports: [String]? = nil) {
        self.id = id
        self.type = type
        self.transports = transports
    }
}

/// `AuthenticatorSelectionCriteria`.
public struct AuthenticatorSelectionJSON: Codable, Sendable, Equatable {
    public var authenticatorAttachment: String?
    public var residentKey: String?
    public var requireResidentKey: Bool?
    public var userVerification: String?
    public init(
        authenticatorAttachment: String? = nil, residentKey: String? = nil, requireResidentKey: Bool? = nil,
        userVerification: String? = nil
    ) {
        self.authenticatorAttachment = authenticatorAttachment
        self.residentKey = residentKey
        self.requireResidentKey = requireResidentKey
        self.userVerification = userVerification
    }
}

/// Extension inputs Latchkey sends.
public struct ExtensionInputsJSON: Codable, Sendable, Equatable {
    public var credProps: Bool?
    public init(credProps: Bool? = nil) { self.credProps = credProps }
}

/// `PublicKeyCredentialCreationOptionsJSON` (L3 §5.1.5.1), what `PublicKeyCredential.parseCreationOptionsFromJSON` takes.
public struct PublicKeyCredentialCreationOptionsJSON: Codable, Sendable, Equatable {
    public var rp: RelyingPartyEntityJSON
    public var user: UserEntityJSON
    public var challenge: Base64URLString
    public var pubKeyCredParams: [CredentialParametersJSON]
    public var timeout: Int?
    public var excludeCredentials: [CredentialDescriptorJSON]?
    public var authenticatorSelection: AuthenticatorSelectionJSON?
    public var hints: [String]?
    public var attestation: String?
    public var attestationFormats: [String]?
    public var extensions: ExtensionInputsJSON?

    public init(
        rp: RelyingPartyEntityJSON, user: UserEntityJSON, challenge: Base64URLString,
        pubKeyCredParams: [CredentialParametersJSON], timeout: Int? = nil,
        excludeCredentials: [CredentialDescriptorJSON]? = nil, authenticatorSelection: AuthenticatorSelectionJSON? = nil,
        hints: [String]? = nil, attestation: String? = nil, attestationFormats: [String]? = nil,
        extensions: ExtensionInputsJSON? = nil
    ) {
        self.rp = rp
        self.user = user
        self.challenge = challenge
        self.pubKeyCredParams = pubKeyCredParams
        self.timeout = timeout
        self.excludeCredentials = excludeCredentials
        self.authenticatorSelection = authenticatorSelection
        self.hints = hints
        self.attestation = attestation
        self.attestationFormats = attestationFormats
        self.extensions = extensions
    }
}

/// `PublicKeyCredentialRequestOptionsJSON` (L3 §5.1.5.2), what `PublicKeyCredential.parseRequestOptionsFromJSON` takes.
public struct PublicKeyCredentialRequestOptionsJSON: Codable, Sendable, Equatable {
    public var challenge: Base64URLString
    public var timeout: Int?
    public var rpId: String?
    public var allowCredentials: [CredentialDescriptorJSON]?
    public var userVerification: String?
    public var hints: [String]?
    public var extensions: ExtensionInputsJSON?

    public init(
        challenge: Base64URLString, timeout: Int? = nil, rpId: String? = nil,
        allowCredentials: [CredentialDescriptorJSON]? = nil, userVerification: String? = nil, hints: [String]? = nil,
        extensions: ExtensionInputsJSON? = nil
    ) {
        self.challenge = challenge
        self.timeout = timeout
        self.rpId = rpId
        self.allowCredentials = allowCredentials
        self.userVerification = userVerification
        self.hints = hints
        self.extensions = extensions
    }
}
