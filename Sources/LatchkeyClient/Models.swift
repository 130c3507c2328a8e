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
    /// Whether it is discoverable (signs in without a name typed first), as the client said when it was
    /// made; nil when it did not say, or from a server older than this field.
    public let discoverable: Bool?
    /// Whether it can evaluate a PRF (`login(prf:)` can then get a key from it); nil when unknown.
    public let prfEnabled: Bool?

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
    /// "discoverable", "not discoverable", or nil when unknown.
    public var discoverabilityDescription: String? { discoverable.map { $0 ? "discoverable" : "not discoverable" } }
}

/// The two values of the prf extension (WebAuthn L3 §10.1.4): inputs (salts) for a login, or the outputs
/// the passkey gave for them (32 bytes each). `second` is optional. Outputs are secrets: a key for data
/// encrypted end to end, say; keep them in memory only as long as they are needed.
public struct PRFValues: Sendable, Equatable {
    public var first: [UInt8]
    public var second: [UInt8]?

    public init(first: [UInt8], second: [UInt8]? = nil) {
        self.first = first
        self.second = second
    }
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

/// One event of the account's own history (`GET /api/account/events`): what happened, when, with which
/// passkey, from which browser and address — enough to spot a sign-in that was not the person's.
public struct AccountEvent: Codable, Sendable, Equatable {
    public let id: String
    public let at: Date
    /// What happened: `login.succeeded`, `login.refused`, `passkey.added`, `sessions.revoked`, … (a
    /// server newer than this client may send a kind it does not list: kept as the server's text).
    public let event: String
    /// The passkey the event concerns (base64url), if any.
    public let passkeyId: String?
    /// The passkey's provider ("iCloud Keychain", …), while the passkey exists and the provider is known.
    public let provider: String?
    /// Browser and system ("Chrome on Linux"), approximately; nil for an operator's action.
    public let device: String?
    public let clientAddress: String?
    /// The service's operator did this, not the person.
    public let byOperator: Bool
    /// A few facts particular to the event: a passkey's name, the code and WebAuthn step of a refused login.
    public let detail: [String: DetailValue]

    /// A value of an event's detail: the server writes only strings, whole numbers and flags.
    public enum DetailValue: Codable, Sendable, Equatable, CustomStringConvertible {
        case text(String)
        case number(Int)
        case flag(Bool)

        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            // JSONDecoder reads a Bool only from true or false, and an Int only from a whole number.
            if let flag = try? container.decode(Bool.self) {
                self = .flag(flag)
            } else if let number = try? container.decode(Int.self) {
                self = .number(number)
            } else {
                self = .text(try container.decode(String.self))
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .text(let text): try container.encode(text)
            case .number(let number): try container.encode(number)
            case .flag(let flag): try container.encode(flag)
            }
        }

        public var description: String {
            switch self {
            case .text(let text): text
            case .number(let number): "\(number)"
            case .flag(let flag): "\(flag)"
            }
        }
    }
}

/// A new device's pending request to sign in to the account, as its owner sees it before approving.
public struct DeviceRequest: Codable, Sendable, Equatable {
    public let id: String
    /// Browser and system from the user agent, approximately ("Safari on iPhone").
    public let device: String?
    public let userAgent: String?
    public let clientAddress: String?
    public let createdAt: Date
    public let expiresAt: Date
}

/// A page of the account's events, newest first; `next` is the cursor of the page after (nil on the last).
public struct AccountEventPage: Codable, Sendable, Equatable {
    public let events: [AccountEvent]
    public let next: String?
}
