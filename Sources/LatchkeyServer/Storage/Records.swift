import Foundation
import LatchkeyDatabase
import SQLKit

/// An account row (DESIGN §4).
struct AccountRecord: Sendable, Equatable {
    let id: String
    let userHandle: [UInt8]
    var displayName: String
    var credo: String
    let createdAt: Date
    var updatedAt: Date
    /// When an operator disabled the account (`latchkey admin accounts disable`); nil while it is enabled.
    /// A disabled account has no sessions and its logins are refused, until it is enabled again.
    var disabledAt: Date? = nil
}

/// A credential row: what §7.1 step 28 stores and §7.2 reads and updates.
struct CredentialRecord: Sendable, Equatable {
    let id: [UInt8]
    let accountId: String
    let publicKey: [UInt8]
    let algorithm: Int
    var signCount: UInt32
    let transports: [String]
    let aaguid: [UInt8]
    let attestationFormat: String
    let backupEligible: Bool
    var backupState: Bool
    var uvInitialized: Bool
    var name: String
    let createdAt: Date
    var lastUsedAt: Date?
    /// The attestation chain was validated to a configured trust anchor (§7.1 step 25); false for
    /// `none`, self attestation, and chains nobody vouched for.
    var attestationVerified = false
    /// The last login at which the backup state (BS) differed from the one stored before it; nil while it
    /// never changed. Kept so that the passkey list can say since when a passkey is synced (or no longer).
    var backupStateChangedAt: Date? = nil
    /// The origin of the ceremony that created it (a web origin, or an Android app's
    /// `android:apk-key-hash:…`); nil for passkeys made before this was recorded.
    var createdOrigin: String? = nil
    /// Whether the passkey is discoverable (a resident key: it can be offered without naming it first), as
    /// the client's credProps output said at registration; nil when it did not say.
    var discoverable: Bool? = nil
    /// Whether the passkey can evaluate a PRF (the prf extension's `enabled` at registration): it can then
    /// give the person's apps a key to unlock data encrypted end to end. Nil when the client did not say.
    var prfEnabled: Bool? = nil
}


/// A session about to be stored: only the token's hash reaches the database.
struct NewSession: Sendable {
    let tokenHash: [UInt8]
    let accountId: String
    /// The passkey that opened the session (nil for sessions from before migration 3): removing the
    /// passkey ends the sessions it opened.
    let credentialId: [UInt8]?
    let createdAt: Date
    let expiresAt: Date
    /// The ceremony that opened it verified the user (UV flag), not only their presence.
    let userVerified: Bool

    /// Stores the session, in the transaction of the unit of work that opens it (a login's, a
    /// registration's, a recovery's).
    func insert(on db: any SQLDatabase) async throws {
        try await db.run(StoreQuery(
            SQL.insertSession, .blob(tokenHash), .text(accountId), .milliseconds(createdAt),
            .milliseconds(expiresAt), .blob(credentialId), .integer(userVerified)))
    }
}

/// A live session as an access token describes it.
struct SessionDetails: Sendable, Equatable {
    let tokenHash: [UInt8]
    let accountId: String
    /// When the passkey ceremony that opened the session happened (the token's `auth_time`).
    let createdAt: Date
    let expiresAt: Date
    let userVerified: Bool
    /// The passkey that opened it can be synced to other devices (BE flag); nil when unknown (the passkey
    /// was removed, or the session predates migration 3).
    let backupEligible: Bool?
    /// How the session was made: a passkey, or a recovery grant (a restricted session).
    var method: SessionMethod = .passkey
}

/// How a session was made (`sessions.method`; access tokens carry it in `amr`).
enum SessionMethod: String, Sendable, Equatable {
    /// A passkey ceremony: a full session.
    case passkey
    /// A recovery grant's exchange: a restricted session that can only add a passkey (`RecoveryGate`).
    case recovery
    /// A new device let in by a signed-in one (a device request approved): restricted the same way.
    case device
    /// An invitation's code: restricted the same way, to the account's first passkey.
    case invitation

    /// Whether the session may only add a passkey.
    var isRestricted: Bool { self != .passkey }
}

/// The account of a live session, and how the session was made.
struct SessionAccount: Sendable, Equatable {
    let account: AccountRecord
    let method: SessionMethod
    /// The grant (for `.device` the device request, for `.invitation` the invitation's use) a restricted
    /// session came from.
    let recoveryGrant: String?
}
