import Foundation
import WebAuthn

/// Request and response bodies of the HTTP API (DESIGN §3).
struct RegistrationOptionsRequest: JSONReadable {
    var displayName: String?
    var name: String?

    init(json reader: JSONShapeReader) throws(JSONShapeError) {
        displayName = try reader.optionalString("displayName")
        name = try reader.optionalString("name")
    }
}

struct OptionsResponse<Options: Encodable>: Encodable {
    let publicKey: Options
}

struct RegistrationVerifyRequest: JSONReadable {
    let credential: RegistrationResponseJSON

    init(json reader: JSONShapeReader) throws(JSONShapeError) {
        credential = try RegistrationResponseJSON(json: try reader.object("credential"))
    }
}

struct LoginVerifyRequest: JSONReadable {
    let credential: AuthenticationResponseJSON

    init(json reader: JSONShapeReader) throws(JSONShapeError) {
        credential = try AuthenticationResponseJSON(json: try reader.object("credential"))
    }
}

/// A request body that reads itself from a document parsed by the strict, depth-limited `JSONValue`
/// parser (see `RequestBody.decode`). Every request body is one: none reaches Foundation's
/// `JSONDecoder`, whose scanner traps on some deeply nested inputs (exactly 513 `[`).
protocol JSONReadable {
    init(json reader: JSONShapeReader) throws(JSONShapeError)
}

struct AccountJSON: Encodable {
    let id: String
    let displayName: String
    let credo: String
    let createdAt: Date
    /// The WebAuthn user handle (base64url): the page needs it to tell the browser's passkey manager
    /// which passkeys are still valid (`signalAllAcceptedCredentials`). It is the caller's own.
    let userHandle: String

    init(_ account: AccountRecord) {
        id = account.id
        userHandle = Base64URL.encode(account.userHandle)
        displayName = account.displayName
        credo = account.credo
        createdAt = account.createdAt
    }
}

struct SessionResponse: Encodable {
    let token: String
    let account: AccountJSON
}

struct AccountUpdateRequest: JSONReadable {
    var displayName: String?
    var credo: String?

    init(json reader: JSONShapeReader) throws(JSONShapeError) {
        displayName = try reader.optionalString("displayName")
        credo = try reader.optionalString("credo")
    }
}

struct PasskeyJSON: Encodable {
    let id: String
    let name: String
    let createdAt: Date
    let lastUsedAt: Date?
    /// Backup state (BS), as of the last login: a synced passkey survives the loss of a device.
    let backedUp: Bool
    /// Backup eligibility (BE), fixed when the passkey was made: whether it can ever be synced.
    let backupEligible: Bool
    /// The last login at which `backedUp` changed; null while it never did.
    let backupStateChangedAt: Date?
    let attestationFormat: String
    /// Whether the attestation chain was validated to a configured anchor: a format with an unverified
    /// chain says only what the authenticator claimed about itself.
    let attestationVerified: Bool
    let aaguid: String
    /// The passkey provider the AAGUID names in the community list; null for one it does not know.
    let provider: ProviderJSON?

    init(_ credential: CredentialRecord, providers: PasskeyProviders) {
        id = Base64URL.encode(credential.id)
        name = credential.name
        createdAt = credential.createdAt
        lastUsedAt = credential.lastUsedAt
        backedUp = credential.backupState
        backupEligible = credential.backupEligible
        backupStateChangedAt = credential.backupStateChangedAt
        attestationFormat = credential.attestationFormat
        attestationVerified = credential.attestationVerified
        aaguid = AAGUIDFormat.string(credential.aaguid)
        provider = providers.provider(aaguid: credential.aaguid).map(ProviderJSON.init)
    }

    // lastUsedAt, backupStateChangedAt and provider are always present, null when there is none.
    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encode(name, forKey: .name)
        try c.encode(createdAt, forKey: .createdAt)
        try c.encode(lastUsedAt, forKey: .lastUsedAt)
        try c.encode(backedUp, forKey: .backedUp)
        try c.encode(backupEligible, forKey: .backupEligible)
        try c.encode(backupStateChangedAt, forKey: .backupStateChangedAt)
        try c.encode(attestationFormat, forKey: .attestationFormat)
        try c.encode(attestationVerified, forKey: .attestationVerified)
        try c.encode(aaguid, forKey: .aaguid)
        try c.encode(provider, forKey: .provider)
    }

    enum CodingKeys: String, CodingKey {
        case id, name, createdAt, lastUsedAt, backedUp, backupEligible, backupStateChangedAt, attestationFormat, attestationVerified, aaguid
        case provider
    }
}

/// A passkey's provider: its name and icons (SVG data URLs, null where the list has none), so a native
/// client can show them without another request. The page loads the same icons from
/// `provider-icons/…` instead, which keeps its Content-Security-Policy free of `data:`.
struct ProviderJSON: Encodable {
    let name: String
    let iconLight: String?
    let iconDark: String?

    init(_ provider: PasskeyProvider) {
        name = provider.name
        iconLight = provider.iconLight
        iconDark = provider.iconDark
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(iconLight, forKey: .iconLight)
        try c.encode(iconDark, forKey: .iconDark)
    }

    enum CodingKeys: String, CodingKey { case name, iconLight, iconDark }
}

/// `GET /api/account/signals`: the arguments of the WebAuthn L3 signals for this account. The server
/// uses the display name as WebAuthn's `user.name` too, so `name` and `displayName` are the same.
struct SignalsJSON: Encodable {
    let rpId: String
    /// The user handle, base64url.
    let userId: String
    let name: String
    let displayName: String
    /// Every passkey id the account accepts now (base64url); a manager may hide or remove the others.
    let allAcceptedCredentialIds: [String]

    init(rpId: String, account: AccountRecord, credentials: [CredentialRecord]) {
        self.rpId = rpId
        userId = Base64URL.encode(account.userHandle)
        name = account.displayName
        displayName = account.displayName
        allAcceptedCredentialIds = credentials.map { Base64URL.encode($0.id) }
    }
}

struct PasskeyResponse: Encodable {
    let passkey: PasskeyJSON
}

struct RenamePasskeyRequest: JSONReadable {
    let name: String

    init(json reader: JSONShapeReader) throws(JSONShapeError) {
        name = try reader.string("name")
    }
}
