/// A base64url string as it travels in the WebAuthn JSON forms. Kept as text in the response types so
/// that a bad encoding is reported by the verifier as a failed step naming the member, not as a JSON
/// shape error.
public typealias Base64URLString = String

/// `RegistrationResponseJSON` (WebAuthn L3 §5.1): what `PublicKeyCredential.toJSON()` gives after `create()`.
public struct RegistrationResponseJSON: Codable, Sendable, Equatable {
    public var id: Base64URLString
    public var rawId: Base64URLString
    public var response: AuthenticatorAttestationResponseJSON
    public var authenticatorAttachment: String?
    public var clientExtensionResults: ClientExtensionResultsJSON
    public var type: String

    public init(
        id: Base64URLString, rawId: Base64URLString, response: AuthenticatorAttestationResponseJSON,
        authenticatorAttachment: String? = nil,
        clientExtensionResults: ClientExtensionResultsJSON = ClientExtensionResultsJSON(), type: String = "public-key"
    ) {
        self.id = id
        self.rawId = rawId
        self.response = response
        self.authenticatorAttachment = authenticatorAttachment
        self.clientExtensionResults = clientExtensionResults
        self.type = type
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        rawId = try c.decode(String.self, forKey: .rawId)
        response = try c.decode(AuthenticatorAttestationResponseJSON.self, forKey: .response)
        authenticatorAttachment = try c.decodeIfPresent(String.self, forKey: .authenticatorAttachment)
        // Some clients omit the (required) member when there are no results; treat that as empty.
        clientExtensionResults = try c.decodeIfPresent(ClientExtensionResultsJSON.self, forKey: .clientExtensionResults)
            ?? ClientExtensionResultsJSON()
        type = try c.decode(String.self, forKey: .type)
    }
}

/// `AuthenticatorAttestationResponseJSON` (L3 §5.2.1).
public struct AuthenticatorAttestationResponseJSON: Codable, Sendable, Equatable {
    public var clientDataJSON: Base64URLString
    public var attestationObject: Base64URLString
    /// Convenience copies the client also sends; the verifier reads the authoritative values from
    /// `attestationObject` and never trusts these.
    public var authenticatorData: Base64URLString?
    public var transports: [String]?
    public var publicKey: Base64URLString?
    public var publicKeyAlgorithm: Int?

    public init(
        clientDataJSON: Base64URLString, attestationObject: Base64URLString, authenticatorData: Base64URLString? = nil,
        transports: [String]? = nil, publicKey: Base64URLString? = nil, publicKeyAlgorithm: Int? = nil
    ) {
        self.clientDataJSON = clientDataJSON
        self.attestationObject = attestationObject
        self.authenticatorData = authenticatorData
        self.transports = transports
        self.publicKey = publicKey
        self.publicKeyAlgorithm = publicKeyAlgorithm
    }
}

/// `AuthenticationResponseJSON` (L3 §5.1): what `PublicKeyCredential.toJSON()` gives after `get()`.
public struct AuthenticationResponseJSON: Codable, Sendable, Equatable {
    public var id: Base64URLString
    public var rawId: Base64URLString
    public var response: AuthenticatorAssertionResponseJSON
    public var authenticatorAttachment: String?
    public var clientExtensionResults: ClientExtensionResultsJSON
    public var type: String

    public init(
        id: Base64URLString, rawId: Base64URLString, response: AuthenticatorAssertionResponseJSON,
        authenticatorAttachment: String? = nil,
        clientExtensionResults: ClientExtensionResultsJSON = ClientExtensionResultsJSON(), type: String = "public-key"
    ) {
        self.id = id
        self.rawId = rawId
        self.response = response
        self.authenticatorAttachment = authenticatorAttachment
        self.clientExtensionResults = clientExtensionResults
        self.type = type
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        rawId = try c.decode(String.self, forKey: .rawId)
        response = try c.decode(AuthenticatorAssertionResponseJSON.self, forKey: .response)
        authenticatorAttachment = try c.decodeIfPresent(String.self, forKey: .authenticatorAttachment)
        clientExtensionResults = try c.decodeIfPresent(ClientExtensionResultsJSON.self, forKey: .clientExtensionResults)
            ?? ClientExtensionResultsJSON()
        type = try c.decode(String.self, forKey: .type)
    }
}

/// `AuthenticatorAssertionResponseJSON` (L3 §5.2.2).
public struct AuthenticatorAssertionResponseJSON: Codable, Sendable, Equatable {
    public var clientDataJSON: Base64URLString
    public var authenticatorData: Base64URLString
    public var signature: Base64URLString
    public var userHandle: Base64URLString?
    public var attestationObject: Base64URLString?

    public init(
        clientDataJSON: Base64URLString, authenticatorData: Base64URLString, signature: Base64URLString,
        userHandle: Base64URLString? = nil, attestationObject: Base64URLString? = nil
    ) {
        self.clientDataJSON = clientDataJSON
        self.authenticatorData = authenticatorData
        self.signature = signature
        self.userHandle = userHandle
        self.attestationObject = attestationObject
    }
}

/// `AuthenticationExtensionsClientOutputsJSON`: the outputs Latchkey reads; others are tolerated and ignored.
public struct ClientExtensionResultsJSON: Codable, Sendable, Equatable {
    /// credProps (L3 §10.1.3): whether the client created a discoverable credential.
    public struct CredentialProperties: Codable, Sendable, Equatable {
        public var rk: Bool?
        public init(rk: Bool? = nil) { self.rk = rk }
    }

    /// prf (L3 §10.1.4): at registration whether the passkey can evaluate a PRF (`enabled`); at login the
    /// outputs (`results`), secrets of the client's that a relying party passes on and never keeps.
    public struct PRFOutputs: Codable, Sendable, Equatable {
        public var enabled: Bool?
        public var results: PRFValuesJSON?
        public init(enabled: Bool? = nil, results: PRFValuesJSON? = nil) {
            self.enabled = enabled
            self.results = results
        }
    }

    public var credProps: CredentialProperties?
    public var prf: PRFOutputs?

    public init(credProps: CredentialProperties? = nil, prf: PRFOutputs? = nil) {
        self.credProps = credProps
        self.prf = prf
    }
}

// MARK: Reading from a parsed document (the server's fast path; the Codable conformances above read the same)

extension AuthenticationResponseJSON {
    /// Reads the response from a parsed document, member for member as `init(from:)` does.
    public init(json reader: JSONShapeReader) throws(JSONShapeError) {
        self.init(
            id: try reader.string("id"), rawId: try reader.string("rawId"),
            response: try AuthenticatorAssertionResponseJSON(json: try reader.object("response")),
            authenticatorAttachment: try reader.optionalString("authenticatorAttachment"),
            clientExtensionResults: try reader.optionalObject("clientExtensionResults").map(ClientExtensionResultsJSON.init(json:))
                ?? ClientExtensionResultsJSON(),
            type: try reader.string("type"))
    }
}

extension AuthenticatorAssertionResponseJSON {
    public init(json reader: JSONShapeReader) throws(JSONShapeError) {
        self.init(
            clientDataJSON: try reader.string("clientDataJSON"), authenticatorData: try reader.string("authenticatorData"),
            signature: try reader.string("signature"), userHandle: try reader.optionalString("userHandle"),
            attestationObject: try reader.optionalString("attestationObject"))
    }
}

extension ClientExtensionResultsJSON {
    public init(json reader: JSONShapeReader) throws(JSONShapeError) {
        self.init(
            credProps: try reader.optionalObject("credProps").map { reader throws(JSONShapeError) in
                CredentialProperties(rk: try reader.optionalBool("rk"))
            },
            prf: try reader.optionalObject("prf").map { reader throws(JSONShapeError) in
                PRFOutputs(enabled: try reader.optionalBool("enabled"), results: try reader.optionalObject("results").map(PRFValuesJSON.init(json:)))
            })
    }
}

extension PRFValuesJSON {
    /// `{first, second?}`, each a string (whether it is base64url of the right size is the caller's rule).
    public init(json reader: JSONShapeReader) throws(JSONShapeError) {
        self.init(first: try reader.string("first"), second: try reader.optionalString("second"))
    }
}

extension RegistrationResponseJSON {
    /// Reads the response from a parsed document, member for member as `init(from:)` does.
    public init(json reader: JSONShapeReader) throws(JSONShapeError) {
        self.init(
            id: try reader.string("id"), rawId: try reader.string("rawId"),
            response: try AuthenticatorAttestationResponseJSON(json: try reader.object("response")),
            authenticatorAttachment: try reader.optionalString("authenticatorAttachment"),
            clientExtensionResults: try reader.optionalObject("clientExtensionResults").map(ClientExtensionResultsJSON.init(json:))
                ?? ClientExtensionResultsJSON(),
            type: try reader.string("type"))
    }
}

extension AuthenticatorAttestationResponseJSON {
    public init(json reader: JSONShapeReader) throws(JSONShapeError) {
        self.init(
            clientDataJSON: try reader.string("clientDataJSON"), attestationObject: try reader.string("attestationObject"),
            authenticatorData: try reader.optionalString("authenticatorData"), transports: try reader.optionalStringArray("transports"),
            publicKey: try reader.optionalString("publicKey"), publicKeyAlgorithm: try reader.optionalInt("publicKeyAlgorithm"))
    }
}
