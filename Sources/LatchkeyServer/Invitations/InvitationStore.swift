import Foundation
import LatchkeyDatabase
import SQLKit

/// The invitations' storage (`Store.invitations`): made by an operator — alone, or with the account it is
/// for — used for a restricted session, revoked. Every change writes its audit events in its transaction.
struct InvitationStore: Sendable {
    /// The store whose connections and audit trail invitations share, and whose profile rules (a username
    /// is one account's, ever: `Store.applyProfile`) the accounts they make follow.
    let store: Store

    var connections: DatabaseConnections { store.connections }

    /// An account an operator's invitation is for can no longer take it: disabled, or it has a passkey.
    struct AccountUnusable: Error {}
    /// The invitation's id (its code's first group) is another invitation's: the caller draws another code.
    struct IdTaken: Error {}

    /// Stores a new invitation; false when its id was taken (the caller draws another code).
    func insert(_ invitation: InvitationRecord, events: [AuditEvent]) async throws -> Bool {
        try await connections.transaction { db in
            guard try await insert(invitation, on: db) else { return false }
            try await store.audit.append(events, on: db)
            return true
        }
    }

    /// An operator's new account, without a passkey, with its profile and the invitation for its first
    /// one, in one transaction. A username another account has or had throws `Store.Failure.duplicate`, a
    /// taken invitation id `IdTaken`; either writes nothing.
    func createAccount(_ account: AccountRecord, profile: [Store.ProfileChange], invitation: InvitationRecord, events: [AuditEvent]) async throws {
        try await connections.transaction { db in
            try await insertAccount(account, profile: profile, on: db)
            guard try await insert(invitation, on: db) else { throw IdTaken() }
            try await store.audit.append(events, on: db)
        }
    }

    /// An account row with its profile, inside the caller's transaction.
    private func insertAccount(_ account: AccountRecord, profile: [Store.ProfileChange], on db: any SQLDatabase) async throws {
        try await db.run(StoreQuery(
            SQL.insertAccount, .text(account.id), .blob(account.userHandle), .text(account.displayName), .text(account.credo),
            .milliseconds(account.createdAt), .milliseconds(account.updatedAt)))
        guard try await store.applyProfile(profile, accountId: account.id, at: account.createdAt, on: db) else { throw AccountUnusable() }
    }

    private func insert(_ i: InvitationRecord, on db: any SQLDatabase) async throws -> Bool {
        try await db.first(StoreQuery(
            InvitationSQL.insert, .text(i.id), .blob(i.secretHash), .text(i.accountId), .text(i.username), .text(i.email),
            .text(OIDCClientRecord.stored(i.groups)), .integer(Int64(i.maxUses)), .milliseconds(i.createdAt), .milliseconds(i.expiresAt),
            .text(i.createdBy), .text(i.requester))) != nil
    }

    /// What asking for a sign-up link by mail came to.
    enum MailedOutcome: Sendable, Equatable {
        case stored
        /// The address had its share of mails within the window.
        case addressLimited
        /// Its requester, or everyone together, holds as many live ones as may be.
        case busy
    }

    /// Stores an invitation someone asked for by mail (`--signup-domain`), unless the address had its share
    /// of mails (logged in `mail_log` with the invitation, no account yet), its requester holds
    /// `perRequester` live ones or everyone together `liveLimit`: an anonymous caller's rows are bounded in
    /// number, and `purgeMailed` bounds them in life. A taken id throws `IdTaken`.
    func insertMailed(
        _ invitation: InvitationRecord, to address: EmailAddress, limits: EmailStore.MailLimits, perRequester: Int, liveLimit: Int, event: AuditEvent
    ) async throws -> MailedOutcome {
        try await connections.transaction { db in
            let at = invitation.createdAt
            let hash = EmailStore.addressHash(address)
            let sent = try await db.first(StoreQuery(SQL.mailSentToAddress, .blob(hash), .milliseconds(at - limits.window)))?
                .decode(column: "sent", as: Int.self) ?? 0
            guard sent < limits.perAddress else { return .addressLimited }
            let mine = try await db.first(StoreQuery(InvitationSQL.liveMailedOfRequester, .text(invitation.requester), .milliseconds(at)))?
                .decode(column: "n", as: Int.self) ?? 0
            let all = try await db.first(StoreQuery(InvitationSQL.liveMailed, .milliseconds(at)))?.decode(column: "n", as: Int.self) ?? 0
            guard mine < perRequester, all < liveLimit else { return .busy }
            guard try await insert(invitation, on: db) else { throw IdTaken() }
            try await db.run(StoreQuery(SQL.logMail, .blob(RandomBytes.make(16)), .blob(hash), .text(nil), .text("signup"), .milliseconds(at)))
            try await store.audit.append([event], on: db)
            return .stored
        }
    }

    /// Forgets the invitations asked for by mail that expired unused before `before`.
    func purgeMailed(before: Date) async throws {
        try await connections.withConnection { db in
            try await db.run(StoreQuery(InvitationSQL.purgeMailed, .milliseconds(before)))
        }
    }

    func invitation(id: String) async throws -> InvitationRecord? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(InvitationSQL.invitation, .text(id))).map(InvitationRecord.init(row:))
        }
    }

    /// The newest `limit` invitations, newest first.
    func recent(limit: Int) async throws -> [InvitationRecord] {
        try await connections.withConnection { db in
            try await db.all(StoreQuery(InvitationSQL.recent, .integer(Int64(limit)))).map(InvitationRecord.init(row:))
        }
    }

    /// Whether `username` cannot be promised to a new account: an account has or had it (`usernames`), or a
    /// live invitation promises it already.
    func isTaken(username: String, now: Date) async throws -> Bool {
        try await connections.withConnection { db in
            for query in [
                StoreQuery(SQL.accountIdByUsername, .text(username)), StoreQuery(SQL.usernameOwner, .text(username)),
                StoreQuery(InvitationSQL.liveWithUsername, .text(username), .milliseconds(now)),
            ] {
                if try await db.first(query) != nil { return true }
            }
            return false
        }
    }

    /// Notes that the invitation's link went to its address.
    func markMailed(id: String, at: Date) async throws {
        try await connections.withConnection { db in
            try await db.run(StoreQuery(InvitationSQL.markMailed, .text(id), .milliseconds(at)))
        }
    }

    /// Revokes a live invitation and ends the restricted sessions of its uses that have not added their
    /// passkey; `event` gets the account the invitation was for, if any. False when there was no such live
    /// invitation.
    func revoke(id: String, at: Date, event: @escaping @Sendable (String?) -> AuditEvent) async throws -> Bool {
        try await connections.transaction { db in
            guard let row = try await db.first(StoreQuery(InvitationSQL.revoke, .text(id), .milliseconds(at))) else { return false }
            _ = try await db.changedRows(StoreQuery(InvitationSQL.deleteSessions, .text(id)))
            try await store.audit.append([event(try row.decode(column: "account_id", as: String?.self))], on: db)
            return true
        }
    }

    /// Counts a wrong secret for the invitation, revoking it at `limit` failures.
    func fail(id: String, at: Date, limit: Int) async throws {
        try await connections.withConnection { db in
            try await db.run(StoreQuery(InvitationSQL.fail, .text(id), .milliseconds(at), .integer(Int64(limit))))
        }
    }

    /// What one use of an invitation is given to write.
    struct Use: Sendable {
        /// The use's id: its row's, and the restricted session's tie to it.
        let id: String
        let at: Date
        /// The account a use makes; nil for an invitation to an operator's account.
        let newAccount: AccountRecord?
        let sessionTokenHash: [UInt8]
        /// How long the restricted session lives at most (never past the invitation's expiry).
        let sessionLifetime: TimeInterval
    }

    /// One use, in one transaction: a use taken from the invitation (nil when none is left, or it was
    /// revoked or expired meanwhile: of concurrent uses of the last one, one wins), the account made with
    /// the invitation's profile — or the operator's account it is for, which must be enabled and have no
    /// passkey yet (`AccountUnusable` otherwise) — the use's row, its restricted session, and `events`
    /// (given the invitation and the account). A username taken meanwhile throws `Store.Failure.duplicate`.
    /// Anything thrown writes nothing, the use included. Returns the invitation as it was, the account and
    /// the session's expiry.
    func use(
        id invitationId: String, _ use: Use, events: @escaping @Sendable (InvitationRecord, AccountRecord) -> [AuditEvent]
    ) async throws -> (invitation: InvitationRecord, account: AccountRecord, sessionExpiresAt: Date)? {
        try await connections.transaction { db in
            guard let row = try await db.first(StoreQuery(InvitationSQL.use, .text(invitationId), .milliseconds(use.at))) else { return nil }
            let invitation = try InvitationRecord(row: row)
            let account: AccountRecord
            if let bound = invitation.accountId {
                guard let state = try await db.first(StoreQuery(InvitationSQL.accountState, .text(bound))),
                      try state.decode(column: "disabled_at", as: Int64?.self) == nil, try state.decode(column: "passkeys", as: Int.self) == 0,
                      let found = try await db.first(StoreQuery(SQL.account, .text(bound))).map(AccountRecord.init(row:))
                else { throw AccountUnusable() }
                account = found
                // The link was mailed to the address: its use proves the mailbox.
                if let email = invitation.email, invitation.mailedAt != nil {
                    _ = try await store.applyProfile([.email(email, verified: true)], accountId: bound, at: use.at, on: db)
                }
            } else {
                guard let made = use.newAccount else { throw AccountUnusable() }
                account = made
                try await insertAccount(account, profile: invitation.profile, on: db)
            }
            let expiresAt = min(use.at + use.sessionLifetime, invitation.expiresAt)
            try await db.run(StoreQuery(InvitationSQL.insertUse, .text(use.id), .text(invitation.id), .text(account.id), .milliseconds(use.at)))
            try await db.run(StoreQuery(
                InvitationSQL.insertSession, .blob(use.sessionTokenHash), .text(account.id), .milliseconds(use.at), .milliseconds(expiresAt),
                .text(use.id)))
            try await store.audit.append(events(invitation, account), on: db)
            return (invitation, account, expiresAt)
        }
    }
}
