import Foundation
import WebAuthn

// Response bodies about passkeys. They live apart from the request bodies in APIModels.swift because
// they read the provider table, which the request-body fuzz target (Fuzz/, which compiles
// APIModels.swift on its own) does not have.

struct PasskeyJSON: APIResponseBody {
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
    /// The origin whose ceremony created the passkey; null for passkeys made before it was recorded.
    let createdOrigin: String?
    /// The package of the configured Android app whose origin that is; null for a web origin.
    let androidApp: String?
    /// Discoverable (credProps' `rk` at registration): it can sign in without a name being typed first.
    /// Null when the client did not say.
    let discoverable: Bool?
    /// Can evaluate a PRF (prf's `enabled` at registration): apps can get a key from it to unlock data
    /// encrypted end to end. Null when the client did not say.
    let prfEnabled: Bool?

    init(_ credential: CredentialRecord, providers: PasskeyProviders, androidApps: [AndroidApp] = []) {
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
        createdOrigin = credential.createdOrigin
        androidApp = credential.createdOrigin.flatMap { origin in androidApps.first { $0.origin == origin }?.packageName }
        discoverable = credential.discoverable
        prfEnabled = credential.prfEnabled
    }

    // lastUsedAt, backupStateChangedAt, provider, createdOrigin, androidApp, discoverable and prfEnabled
    // are always present, null when there is none.
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
        try c.encode(createdOrigin, forKey: .createdOrigin)
        try c.encode(androidApp, forKey: .androidApp)
        try c.encode(discoverable, forKey: .discoverable)
        try c.encode(prfEnabled, forKey: .prfEnabled)
    }

    enum CodingKeys: String, CodingKey {
        case id, name, createdAt, lastUsedAt, backedUp, backupEligible, backupStateChangedAt, attestationFormat, attestationVerified, aaguid
        case provider, createdOrigin, androidApp, discoverable, prfEnabled
    }
}

/// A passkey's provider: its name and icons (SVG data URLs, null where the list has none), so a native
/// client can show them without another request. The page loads the same icons from
/// `provider-icons/…` instead, which keeps its Content-Security-Policy free of `data:`. `metadataIcon`
/// says that the list has no icon but the FIDO metadata has one, served (only) at
/// `provider-icons/{aaguid}/metadata`.
struct ProviderJSON: Encodable {
    let name: String
    let iconLight: String?
    let iconDark: String?
    let metadataIcon: Bool

    init(_ provider: PasskeyProvider) {
        name = provider.name
        iconLight = provider.iconLight?.dataURL
        iconDark = provider.iconDark?.dataURL
        metadataIcon = provider.metadataIcon != nil
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(name, forKey: .name)
        try c.encode(iconLight, forKey: .iconLight)
        try c.encode(iconDark, forKey: .iconDark)
        try c.encode(metadataIcon, forKey: .metadataIcon)
    }

    enum CodingKeys: String, CodingKey { case name, iconLight, iconDark, metadataIcon }
}

/// `GET /api/account/signals`: the arguments of the WebAuthn L3 signals for this account. The server
/// uses the display name as WebAuthn's `user.name` too, so `name` and `displayName` are the same.
struct SignalsJSON: APIResponseBody {
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

struct PasskeyResponse: APIResponseBody {
    let passkey: PasskeyJSON
}

