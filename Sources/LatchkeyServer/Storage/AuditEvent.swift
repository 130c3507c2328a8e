import Foundation
import LatchkeyAPI

/// One entry of the audit trail (`audit_events`): what happened to which account, who did it, and from
/// where. The trail is append-only, and each entry is written in the transaction of the change it
/// records, so it holds exactly the changes that happened: no entry for a change that rolled back, no
/// change without its entry. It never holds a secret — no token, key, code or challenge; a credential id
/// is public (every login response carries it).
struct AuditEvent: Sendable, Equatable {
    /// What happened. The raw values are the names people and programs read (`latchkey admin audit
    /// --event`, the admin API, webhooks, `GET /api/account/events`): stable once shipped.
    enum Kind: String, Sendable, CaseIterable, Codable {
        case accountCreated = "account.created"
        case accountUpdated = "account.updated"
        case accountDeleted = "account.deleted"
        case accountDisabled = "account.disabled"
        case accountEnabled = "account.enabled"
        case passkeyAdded = "passkey.added"
        case passkeyRenamed = "passkey.renamed"
        case passkeyRemoved = "passkey.removed"
        /// A passkey the authenticator policy refused (adding one to an account; the detail names the rule).
        case passkeyRefused = "passkey.refused"
        case loginSucceeded = "login.succeeded"
        /// A login with a known passkey refused; the detail names the WebAuthn step that failed.
        case loginRefused = "login.refused"
        /// The signature counter did not grow (§6.1.1): the passkey may have been cloned.
        case possibleClone = "login.possible_clone"
        /// A synced passkey that had counted reported 0 (moved to a provider that does not count): its
        /// counter was reset instead of the login being refused.
        case counterReset = "passkey.counter_reset"
        /// A passkey's backup state (BS) changed at a login: it became synced, or stopped being.
        case backupStateChanged = "passkey.backup_state_changed"
        /// One session ended by its holder (log out).
        case sessionEnded = "session.ended"
        /// Every session of the account ended ("sign out everywhere", an operator's revocation).
        case sessionsRevoked = "sessions.revoked"
        case accessTokenIssued = "access_token.issued"
        case adminKeyCreated = "admin_key.created"
        case adminKeyRevoked = "admin_key.revoked"
        /// An account was made an administrator (or its scopes changed), or stopped being one.
        case adminGranted = "admin.granted"
        case adminRevoked = "admin.revoked"
        /// An administrator signed in to the console (the first one through the setup link: `detail.setup`).
        case consoleSignedIn = "console.signed_in"
        case recoveryIssued = "recovery.issued"
        case recoveryRevoked = "recovery.revoked"
        /// A code exchanged for a restricted session.
        case recoveryExchanged = "recovery.exchanged"
        /// The restricted session added its passkey: the grant is used up.
        case recoveryCompleted = "recovery.completed"
        /// A code refused (wrong for a real grant, or its grant no longer live); the detail says why.
        case recoveryRefused = "recovery.refused"
        /// A recovery link was mailed to the account's verified address (someone asked for it by the
        /// address); the detail has the grant's id, never the address.
        case recoveryEmailSent = "recovery.email_sent"
        /// The person confirmed their email address with the link mailed to it.
        case emailVerified = "account.email_verified"
        /// A signed-in person let a new device in (with a fresh passkey); the detail describes the device.
        case deviceApproved = "device_request.approved"
        case deviceDenied = "device_request.denied"
        /// The approved device added its passkey.
        case deviceCompleted = "device_request.completed"
        /// OpenID Connect (detail `client`, the client id, and `clientName`): an authorization code issued to
        /// a client for the account.
        case oidcAuthorized = "oidc.authorized"
        /// The person allowed a client the scopes in the detail (the consent screen).
        case oidcConsentGiven = "oidc.consent_given"
        /// A client exchanged its code for tokens.
        case oidcCodeExchanged = "oidc.code_exchanged"
        /// A used code presented again: everything the first use issued is revoked (RFC 6749 §4.1.2).
        case oidcCodeReused = "oidc.code_reused"
        case oidcRefreshRotated = "oidc.refresh_rotated"
        /// A refresh token presented after it was rotated: the whole grant ends (RFC 9700 §4.14.2).
        case oidcRefreshReused = "oidc.refresh_reused"
        /// The person, a client (RFC 7009) or an operator ended a client's access.
        case oidcGrantRevoked = "oidc.grant_revoked"
        /// A client obtained a client-credentials token (no account; the detail has the scopes).
        case oidcClientCredentialsIssued = "oidc.client_credentials_issued"
        /// On the verification page (RFC 8628), the person let a device sign in to the client, or refused.
        case oidcDeviceApproved = "oidc.device_approved"
        case oidcDeviceDenied = "oidc.device_denied"
        /// An operator set a custom claim of an account (or, with no account, of a group: `detail.group`).
        case oidcClaimSet = "oidc_claim.set"
        case oidcClaimRemoved = "oidc_claim.removed"
        /// RP-initiated logout ended the person's session.
        case oidcLogout = "oidc.logout"
        /// An operator registered, changed, gave a new secret to, or removed a client (no account).
        case oidcClientCreated = "oidc_client.created"
        case oidcClientUpdated = "oidc_client.updated"
        case oidcClientSecretRotated = "oidc_client.secret_rotated"
        case oidcClientRemoved = "oidc_client.removed"
        /// An operator made an invitation (the account it is for, when an operator made that account too);
        /// the detail has its id, uses, lifetime and whether it was mailed — never its code.
        case inviteCreated = "invite.created"
        /// An invitation's code opened the account's restricted session (a new account for each use of an
        /// invitation for new people); the detail has the invitation's id.
        case inviteUsed = "invite.used"
        case inviteRevoked = "invite.revoked"
        /// An operator made an account without a passkey (`latchkey admin accounts create`), with an
        /// invitation for its first one.
        case accountCreatedByOperator = "account.created_by_operator"
        /// A FIDO metadata BLOB was verified and stored, replacing an older one (no account; the detail has
        /// its `serial`, `nextUpdate`, `entries` and the replaced `previousSerial`).
        case metadataLoaded = "metadata.loaded"

        /// How many of these one account writes an hour, for the routine events a signed-in caller causes
        /// with every call (a token, an authorization, a refresh): beyond it they are not written, so that
        /// 600 calls a minute do not become 600 rows and 600 webhook deliveries (review 4, S4-14; the same
        /// cap as refused logins, `Store.refusedLoginsPerHour`). Nil for every event that changes something.
        var routinePerHour: Int? {
            switch self {
            case .accessTokenIssued, .oidcAuthorized, .oidcRefreshRotated, .oidcCodeExchanged: return 20
            default: return nil
            }
        }
    }

    /// The row's number, in the order rows were written (nil before it is stored).
    var id: Int64? = nil
    let at: Date
    let kind: Kind
    let accountId: String?
    let credentialId: [UInt8]?
    let origin: AuditOrigin
    /// A few facts particular to the event (a passkey's new name, the step a login failed), as JSON
    /// object text; `{}` when there are none.
    let detail: String

    init(id: Int64? = nil, at: Date, kind: Kind, accountId: String?, credentialId: [UInt8]? = nil, origin: AuditOrigin, detail: String = "{}") {
        self.id = id
        self.at = at
        self.kind = kind
        self.accountId = accountId
        self.credentialId = credentialId
        self.origin = origin
        self.detail = detail
    }
}

/// Who caused an audited change and from where: the actor, and for a change made over HTTP the client's
/// address (as the rate limiter sees it), its `User-Agent` and the request's id (the one in the logs).
struct AuditOrigin: Sendable, Equatable {
    /// `person` (the account's holder, signed in), `anonymous` (a login that did not complete),
    /// `admin:<key id>` (the admin API), `cli` (`latchkey admin` on the database), `email` (a recovery
    /// link mailed to a verified address on an anonymous request) or `system`.
    let actor: String
    var clientAddress: String? = nil
    var userAgent: String? = nil
    var requestId: String? = nil

    /// `latchkey admin`, working on the database directly.
    static let cli = AuditOrigin(actor: "cli")
    static let system = AuditOrigin(actor: "system")

    /// A user agent is the caller's text: kept to a length that cannot grow a row much.
    static let userAgentLimit = 256

    init(actor: String, clientAddress: String? = nil, userAgent: String? = nil, requestId: String? = nil) {
        self.actor = actor
        self.clientAddress = clientAddress
        self.userAgent = userAgent.map { String($0.prefix(Self.userAgentLimit)) }
        self.requestId = requestId
    }

    /// The same origin with another actor (the signed-in person once a login completed).
    func acting(as actor: String) -> AuditOrigin {
        AuditOrigin(actor: actor, clientAddress: clientAddress, userAgent: userAgent, requestId: requestId)
    }

    /// An event of this origin.
    func event(_ kind: AuditEvent.Kind, at: Date, account: String?, credential: [UInt8]? = nil, detail: AuditDetail = [:]) -> AuditEvent {
        AuditEvent(at: at, kind: kind, accountId: account, credentialId: credential, origin: self, detail: detail.json)
    }
}

/// An event's detail: a few string and number facts, written as one flat JSON object with sorted keys.
struct AuditDetail: Sendable, ExpressibleByDictionaryLiteral {
    enum Value: Sendable {
        case text(String)
        case number(Int)
        case flag(Bool)
    }

    var members: [(String, Value)]

    init(dictionaryLiteral elements: (String, Value)...) {
        members = elements
    }

    /// An account change's detail: which fields changed (the credo's text and the username are the
    /// person's, not the trail's: only the display name, which every event of the account shows anyway,
    /// is written out).
    static func changed(displayName: String?, credo: String?, username: Bool = false) -> AuditDetail {
        let fields = [displayName.map { _ in "displayName" }, credo.map { _ in "credo" }, username ? "username" : nil].compactMap { $0 }
        var detail: AuditDetail = ["fields": .text(fields.joined(separator: ","))]
        if let displayName { detail.members.append(("displayName", .text(displayName))) }
        return detail
    }

    var json: String {
        guard !members.isEmpty else { return "{}" }
        var writer = JSONWriter()
        writer.object { json in
            for (key, value) in members.sorted(by: { $0.0 < $1.0 }) {
                switch value {
                case .text(let text): json.member(key, text)
                case .number(let number): json.member(key, number)
                case .flag(let flag): json.member(key, flag)
                }
            }
        }
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
