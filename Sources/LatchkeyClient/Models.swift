import Foundation

/// The account as the server shows it.
public struct Account: Codable, Sendable, Equatable {
    public let id: String
    public let displayName: String
    public let credo: String
    public let createdAt: Date
}

/// One of the account's passkeys.
public struct Passkey: Codable, Sendable, Equatable {
    public let id: String
    public let name: String
    public let createdAt: Date
    public let lastUsedAt: Date?
    /// Backup state (BS) as of the last login: a synced passkey survives the loss of a device.
    public let backedUp: Bool
    /// Backup eligibility (BE); nil from a server older than this field.
    public let backupEligible: Bool?
    /// The last login at which `backedUp` changed; nil while it never did.
    public let backupStateChangedAt: Date?
    public let attestationFormat: String
    public let aaguid: String
    /// The passkey provider the server's table names for the AAGUID; nil for one it does not know.
    public let provider: Provider?

    /// A passkey provider ("Apple Passwords", "1Password", …) with its icons as SVG `data:` URLs.
    public struct Provider: Codable, Sendable, Equatable {
        public let name: String
        public let iconLight: String?
        public let iconDark: String?
    }

    /// How people are told where the passkey lives: "synced passkey" or "this device only".
    public var backupDescription: String { backedUp ? "synced passkey" : "this device only" }
    /// The provider's name, or "unknown provider".
    public var providerName: String { provider?.name ?? "unknown provider" }
}

/// The arguments of the WebAuthn Level 3 signal methods for the signed-in account (`GET
/// /api/account/signals`): what an app passes to the platform's passkey manager (on Apple platforms,
/// `ASCredentialUpdater`) so that its list matches the server's.
public struct Signals: Codable, Sendable, Equatable {
    public let rpId: String
    /// The user handle, base64url.
    public let userId: String
    public let name: String
    public let displayName: String
    /// Every passkey id the account accepts now (base64url).
    public let allAcceptedCredentialIds: [String]
}
