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
    /// The prf extension (L3 §10.1.4): `{}` at registration asks whether the new passkey can evaluate a
    /// PRF; at login, the salts to evaluate it with.
    public var prf: PRFInputsJSON?

    public init(credProps: Bool? = nil, prf: PRFInputsJSON? = nil) {
        self.credProps = credProps
        self.prf = prf
    }
}

/// `AuthenticationExtensionsPRFInputs` in its JSON form (L3 §10.1.4): salts as base64url.
/// `evalByCredential` maps a credential id (base64url) to the salts for that credential; a client
/// accepts it only with `allowCredentials` naming those ids.
public struct PRFInputsJSON: Codable, Sendable, Equatable {
    public var eval: PRFValuesJSON?
    public var evalByCredential: [Base64URLString: PRFValuesJSON]?

    public init(eval: PRFValuesJSON? = nil, evalByCredential: [Base64URLString: PRFValuesJSON]? = nil) {
        self.eval = eval
        self.evalByCredential = evalByCredential
    }
}

/// `AuthenticationExtensionsPRFValues` in its JSON form: two inputs (salts) or two outputs (results),
/// base64url; `second` is optional.
public struct PRFValuesJSON: Codable, Sendable, Equatable {
    public var first: Base64URLString
    public var second: Base64URLString?

    public init(first: Base64URLString, second: Base64URLString? = nil) {
        self.first = first
        self.second = second
    }
}

/// `PublicKeyCredentialHint` (L3 §5.8.7): what the relying party believes the person will use, most
/// preferred first; a client may show its choices in that order.
public enum PublicKeyCredentialHint: String, Codable, Sendable, CaseIterable {
    /// A physical security key.
    case securityKey = "security-key"
    /// The platform authenticator of the device in use (its passkey manager).
    case clientDevice = "client-device"
    /// A phone or tablet, over the hybrid transport (a QR code).
    case hybrid
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
