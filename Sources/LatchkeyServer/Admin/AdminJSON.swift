import Foundation
import WebAuthn

// What the admin API answers and `latchkey admin … --json` prints: one set of types, so that a script
// reads the same document from either (`JSONResponse.encoder`'s style: sorted keys, ISO 8601 dates).

/// An account as an operator sees it in a list.
struct AdminAccountJSON: NullKeepingBody, Equatable {
    let id: String
    let displayName: String
    let createdAt: Date
    let updatedAt: Date
    /// When it was disabled; null while enabled.
    let disabledAt: Date?
    let passkeys: Int
    /// Live sessions.
    let sessions: Int
    /// The last login with any of its passkeys; null if it never signed in after registering.
    let lastLoginAt: Date?

    init(_ summary: AdminAccountStore.AccountSummary) {
        id = summary.account.id
        displayName = summary.account.displayName
        createdAt = summary.account.createdAt
        updatedAt = summary.account.updatedAt
        disabledAt = summary.account.disabledAt
        passkeys = summary.passkeys
        sessions = summary.sessions
        lastLoginAt = summary.lastLoginAt
    }
}

/// A page of accounts; `next` is the cursor of the page after (null on the last).
struct AdminAccountPageJSON: NullKeepingBody, Equatable {
    let accounts: [AdminAccountJSON]
    let next: String?
}

/// One account with its passkeys and live sessions, and what apps may learn about the person
/// (OpenID Connect): username and email null when there are none.
struct AdminAccountDetailJSON: NullKeepingBody {
    let account: AdminAccountJSON
    let credo: String
    let username: String?
    let email: String?
    let emailVerified: Bool
    let groups: [String]
    let passkeys: [PasskeyJSON]
    let sessions: [AdminSessionJSON]
}

/// A live session: never its token, only the first bytes of the token's hash (an access token's `sid`).
struct AdminSessionJSON: NullKeepingBody, Equatable {
    let sid: String
    let createdAt: Date
    let expiresAt: Date
    /// The passkey that opened it (base64url); null for sessions from before that was recorded.
    let passkeyId: String?
    let userVerified: Bool

    init(_ session: AdminAccountStore.SessionSummary) {
        sid = session.sid.map { String(format: "%02x", $0) }.joined()
        createdAt = session.createdAt
        expiresAt = session.expiresAt
        passkeyId = session.credentialId.map(Base64URL.encode)
        userVerified = session.userVerified
    }
}

/// An admin key as listed: never its secret or the secret's hash.
struct AdminKeyJSON: NullKeepingBody, Equatable {
    let id: String
    let name: String
    let scope: String
    let createdAt: Date
    let createdBy: String
    let lastUsedAt: Date?
    let revokedAt: Date?

    init(_ key: AdminKeyRecord) {
        id = key.id
        name = key.name
        scope = key.scope.rawValue
        createdAt = key.createdAt
        createdBy = key.createdBy
        lastUsedAt = key.lastUsedAt
        revokedAt = key.revokedAt
    }
}

/// A new admin key: the only time its secret is shown.
struct AdminKeyCreatedJSON: APIResponseBody {
    let key: AdminKeyJSON
    let secret: String
}

/// One event of the audit trail.
struct AuditEventJSON: NullKeepingBody, Equatable {
    let id: String
    let at: Date
    let event: String
    let accountId: String?
    let passkeyId: String?
    let actor: String
    let clientAddress: String?
    let userAgent: String?
    let requestId: String?
    let detail: [String: AuditDetailValue]

    init(_ event: AuditEvent) {
        id = event.id.map(String.init) ?? ""
        at = event.at
        self.event = event.kind.rawValue
        accountId = event.accountId
        passkeyId = event.credentialId.map(Base64URL.encode)
        actor = event.origin.actor
        clientAddress = event.origin.clientAddress
        userAgent = event.origin.userAgent
        requestId = event.origin.requestId
        detail = AuditDetailValue.object(event.detail)
    }
}

/// A page of events, newest first; `next` is the cursor of the page after (null on the last).
struct AuditEventPageJSON: NullKeepingBody {
    let events: [AuditEventJSON]
    let next: String?
}

/// An administrator (`GET /api/admin/admins`, `PUT /api/admin/accounts/{id}/admin`).
struct AdminRoleJSON: APIResponseBody, Equatable {
    let accountId: String
    let scopes: [String]
    let grantedAt: Date
    let grantedBy: String

    init(_ role: AdminRole) {
        accountId = role.accountId
        scopes = role.scopes.names
        grantedAt = role.grantedAt
        grantedBy = role.grantedBy
    }
}
