import Foundation
import LatchkeyDatabase
import SQLKit

/// All persistence, over SQLKit, with the same SQL on SQLite and PostgreSQL. Methods are the units of
/// work the service needs; each is one statement or one transaction. It holds what every feature shares
/// (accounts, passkeys, sessions, used challenges, the audit trail); a feature's own storage is an extension in
/// the feature's folder (`Store+<Feature>.swift`), or a store of its own it hands out there (`ceremonies`,
/// `invitations`), so that this folder names no feature.
struct Store: Sendable {
    let connections: DatabaseConnections
    /// Writes the audit events of a unit of work in its transaction (and queues them for webhooks).
    let audit: AuditTrail
    /// Whether the transactions that end sessions queue back-channel logout tokens (`Store+OIDCLogout`):
    /// the server's store does only with `--oidc`, when something delivers them (`OIDCLogoutDelivery`);
    /// without it the outbox would only grow.
    let queuesOIDCLogouts: Bool

    /// A store over `connections`; `webhookEndpoints` are the ids of the webhook endpoints every audit
    /// event is queued for (none by default).
    init(connections: DatabaseConnections, webhookEndpoints: [String] = [], queuesOIDCLogouts: Bool = true) {
        self.connections = connections
        self.audit = AuditTrail(webhookEndpoints: webhookEndpoints)
        self.queuesOIDCLogouts = queuesOIDCLogouts
    }

    /// Why a unit of work wrote nothing (the ceremonies' writes throw these too).
    enum Failure: Error, Equatable {
        /// A unique key already exists (credential id registered twice).
        case duplicate
        /// The ceremony's challenge already completed a ceremony.
        case challengeUsed
        /// The account already holds as many passkeys as it may.
        case tooManyPasskeys
        /// The recovery grant behind a restricted session is used, revoked or expired.
        case recoveryGrantUsed
        /// A server key was neither there nor insertable (never expected: the insert ignores conflicts).
        case missingServerKey
    }

    // MARK: Challenges and keys

    /// How long a used challenge's mark outlives the challenge. Instances of a cluster each read their
    /// own clock: without a margin, an instance whose clock runs ahead purges a mark while one whose
    /// clock runs behind still opens the challenge, and a captured assertion could be replayed for as
    /// long as the skew (third review, finding 8). Clocks kept by NTP are within milliseconds; a minute
    /// covers a badly kept one, and costs only a minute more of marks.
    static let usedChallengeGrace: TimeInterval = 60

    /// Removes the marks of challenges that expired more than `usedChallengeGrace` ago (an expired
    /// challenge no longer opens).
    func purgeUsedChallenges(now: Date) async throws {
        try await connections.withConnection { db in
            try await db.run(StoreQuery(SQL.purgeUsedChallenges, .milliseconds(now - Self.usedChallengeGrace)))
        }
    }

    /// The database's schema version, read through a connection (so also a check that it answers).
    func schemaVersion() async throws -> Int {
        try await connections.withConnection { db in try await Migrations.version(of: db) }
    }

    /// How many completed challenges are remembered: the only per-ceremony state the server keeps.
    func usedChallengeCount() async throws -> Int {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.countUsedChallenges))?.decode(column: "n", as: Int.self) ?? 0
        }
    }

    /// The server key called `name`, made by `make` the first time any instance asks: of instances that
    /// start together, the first insert wins and every one reads the same key back.
    func serverKey(named name: String, make: () -> [UInt8]) async throws -> [UInt8] {
        let fresh = make()
        return try await connections.withConnection { db in
            try await db.run(StoreQuery(SQL.insertServerKey, .text(name), .blob(fresh), .milliseconds(Date())))
            guard let row = try await db.first(StoreQuery(SQL.serverKey, .text(name))) else {
                throw Failure.missingServerKey
            }
            return [UInt8](try row.decode(column: "secret", as: Data.self))
        }
    }

    /// The stored secret of key `name`, if there is one.
    func existingServerKey(named name: String) async throws -> [UInt8]? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.serverKey, .text(name))).map { [UInt8](try $0.decode(column: "secret", as: Data.self)) }
        }
    }

    /// Replaces the stored secret of key `name` with `secret`, if it is still `old`.
    func replaceServerKey(named name: String, secret: [UInt8], ifStill old: [UInt8]) async throws {
        try await connections.withConnection { db in
            try await db.run(StoreQuery(SQL.replaceServerKey, .text(name), .blob(secret), .blob(old)))
        }
    }

    /// Deletes every secret key (`latchkey keys rotate`): the next start makes new ones. Returns how many.
    func deleteAllServerKeys() async throws -> Int {
        try await connections.withConnection { db in
            try await db.changedRows(StoreQuery(SQL.deleteAllServerKeys))
        }
    }

    /// Deletes the server keys whose name starts with `prefix` and sorts before `name` (retired signing keys).
    func deleteServerKeys(prefix: String, before name: String) async throws {
        try await connections.withConnection { db in
            try await db.run(StoreQuery(SQL.deleteServerKeys, .text(prefix + "%"), .text(name)))
        }
    }

    /// Writes SQLite's log back into the database and empties it, so that a burst of writes does not leave
    /// a large log file behind; nothing to do on PostgreSQL.
    func truncateLog() async throws {
        guard connections.flavor == .sqlite else { return }
        try await connections.withConnection { db in try await db.raw("PRAGMA wal_checkpoint(TRUNCATE)").run() }
    }

    // MARK: Accounts and credentials

    func account(id: String) async throws -> AccountRecord? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.account, .text(id))).map(AccountRecord.init(row:))
        }
    }

    /// Changes the account's display name, credo or both, and `profile` (the person's username) in the
    /// same transaction; `event` (`account.updated`) is written with the change, and nothing when there
    /// is no such account.
    func updateAccount(
        id: String, displayName: String?, credo: String?, profile: [ProfileChange] = [], now: Date, event: AuditEvent
    ) async throws -> AccountRecord? {
        try await connections.transaction { db in
            guard var account = try await db.first(StoreQuery(SQL.account, .text(id))).map(AccountRecord.init(row:)) else { return nil }
            // A username another account has throws `Failure.duplicate` here, before anything changed.
            guard try await applyProfile(profile, accountId: id, at: now, on: db) else { return nil }
            if let displayName { account.displayName = displayName }
            if let credo { account.credo = credo }
            account.updatedAt = now
            try await db.run(StoreQuery(SQL.updateAccount, .text(account.displayName), .text(account.credo), .milliseconds(now), .text(id)))
            try await audit.append([event], on: db)
            return account
        }
    }

    /// Deletes the account; its credentials and sessions go with it (`SQL.deleteAccount`). `event`
    /// (`account.deleted`) is written with it when the account was there, and every app it signed in to
    /// with a back-channel logout URI is told (`queueOIDCLogouts(deletingAccount:)`). False when it was not.
    @discardableResult
    func deleteAccount(id: String, event: AuditEvent) async throws -> Bool {
        try await connections.transaction { db in
            // Before the rows that say which apps and sessions there were are deleted with the account.
            try await queueOIDCLogouts(deletingAccount: id, at: event.at, on: db)
            var deleted = 0
            for statement in SQL.deleteAccount {
                deleted = try await db.changedRows(StoreQuery(statement, .text(id)))
            }
            guard deleted == 1 else { return false }
            try await audit.append([event], on: db)
            return true
        }
    }

    func credential(id: [UInt8]) async throws -> CredentialRecord? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.credential, .blob(id))).map(CredentialRecord.init(row:))
        }
    }

    /// Every credential, a page at a time in id order (after `after`).
    func credentials(after: [UInt8], limit: Int) async throws -> [CredentialRecord] {
        try await connections.withConnection { db in
            try await db.all(StoreQuery(SQL.credentialsAfter, .blob(after), .integer(Int64(limit)))).map(CredentialRecord.init(row:))
        }
    }

    func credentials(accountId: String) async throws -> [CredentialRecord] {
        try await connections.withConnection { db in
            try await db.all(StoreQuery(SQL.accountCredentials, .text(accountId))).map(CredentialRecord.init(row:))
        }
    }

    /// Renames one of the account's passkeys, writing `event` (`passkey.renamed`) with the change; nil
    /// (and no event) when the account has no such passkey.
    func renameCredential(id: [UInt8], accountId: String, name: String, event: AuditEvent) async throws -> CredentialRecord? {
        try await connections.transaction { db in
            guard let renamed = try await db.first(StoreQuery(SQL.renameCredential, .text(name), .blob(id), .text(accountId)))
                .map(CredentialRecord.init(row:))
            else { return nil }
            try await audit.append([event], on: db)
            return renamed
        }
    }

    enum DeleteCredentialOutcome: Sendable { case deleted, notFound, lastPasskey }

    /// Deletes one of the account's credentials unless it is the last one (the account would be locked out),
    /// and ends the sessions it opened — all but the caller's (`keepingSession`, a token hash): whoever
    /// removes a lost or stolen passkey wants the sessions made with it gone, and stays signed in.
    /// `event` (`passkey.removed`) is written when it was deleted.
    func deleteCredential(id: [UInt8], accountId: String, keepingSession: [UInt8], event: AuditEvent) async throws -> DeleteCredentialOutcome {
        try await connections.transaction { db in
            // The account's row is locked first (PostgreSQL; SQLite's write transaction already excludes
            // every other writer), so two deletions of the account's last two passkeys cannot both count
            // two and leave it with none.
            try await db.run(StoreQuery(SQL.lockAccount, .text(accountId)))
            let ids = try await db.all(StoreQuery(SQL.accountCredentialIds, .text(accountId)))
                .map { Array(try $0.decode(column: "id", as: Data.self)) }
            guard ids.contains(id) else { return .notFound }
            guard ids.count > 1 else { return .lastPasskey }
            try await db.run(StoreQuery(SQL.deleteCredential, .blob(id), .text(accountId)))
            try await queueOIDCLogouts(endingSessionsOpenedBy: id, accountId: accountId, except: keepingSession, at: event.at, on: db)
            try await db.run(StoreQuery(SQL.deleteCredentialSessions, .blob(id), .blob(keepingSession), .text(accountId)))
            try await audit.append([event], on: db)
            return .deleted
        }
    }

    // MARK: Sessions

    func insertSession(_ session: NewSession) async throws {
        try await connections.withConnection { db in try await session.insert(on: db) }
    }

    /// A live session with what an access token says about it, by its token's hash.
    func sessionDetails(tokenHash: [UInt8], now: Date) async throws -> SessionDetails? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.sessionDetails, .blob(tokenHash), .milliseconds(now))).map(SessionDetails.init(row:))
        }
    }

    /// A live session whose token hash begins with `prefix` (an access token's `sid`); nil if none, or
    /// if the prefix is not a proper one (empty, or all 0xFF bytes, which has no range above it).
    func sessionDetails(hashPrefix prefix: [UInt8], now: Date) async throws -> SessionDetails? {
        guard let upper = Self.successor(of: prefix) else { return nil }
        return try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.sessionDetailsByPrefix, .blob(prefix), .blob(upper), .milliseconds(now)))
                .map(SessionDetails.init(row:))
        }
    }

    /// The smallest byte string greater than every string that starts with `prefix`.
    static func successor(of prefix: [UInt8]) -> [UInt8]? {
        var bytes = prefix
        while let last = bytes.last {
            if last < 0xFF {
                bytes[bytes.count - 1] = last + 1
                return bytes
            }
            bytes.removeLast()
        }
        return nil
    }

    /// The account of an unexpired session, found by the token's hash (an index look-up, so the time
    /// taken does not depend on how much of a guessed token is right).
    /// The account of a live session, by its token's hash; nil when there is no such session.
    func sessionAccountRecord(tokenHash: [UInt8], now: Date) async throws -> SessionAccount? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.sessionAccountRecord, .blob(tokenHash), .milliseconds(now))).map { row in
                // An unknown method is treated as the most restricted one.
                SessionAccount(
                    account: try AccountRecord(row: row),
                    method: SessionMethod(rawValue: try row.decode(column: "method", as: String.self)) ?? .recovery,
                    recoveryGrant: try row.decode(column: "recovery_grant", as: String?.self))
            }
        }
    }

    func sessionAccount(tokenHash: [UInt8], now: Date) async throws -> String? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.sessionAccount, .blob(tokenHash), .milliseconds(now)))
                .map { try $0.decode(column: "account_id", as: String.self) }
        }
    }

    /// Ends every session of the account ("sign out everywhere", an operator's revocation), writing
    /// `event` (`sessions.revoked`, its detail counting them) with it, and queueing a back-channel logout
    /// token for each app a session signed the person in to. Returns how many ended.
    @discardableResult
    func deleteSessions(accountId: String, at now: Date, event: @escaping @Sendable (Int) -> AuditEvent) async throws -> Int {
        try await connections.transaction { db in
            try await queueOIDCLogouts(endingSessionsOf: accountId, at: now, on: db)
            let ended = try await db.changedRows(StoreQuery(SQL.deleteAccountSessions, .text(accountId)))
            try await audit.append([event(ended)], on: db)
            return ended
        }
    }

    /// Ends one session; `event` (`session.ended`, given the session's account) is written when there
    /// was one, and a back-channel logout token queued for each app the session signed the person in to.
    func deleteSession(tokenHash: [UInt8], at now: Date, event: (@Sendable (String) -> AuditEvent)?) async throws {
        try await connections.transaction { db in
            try await queueOIDCLogouts(endingSession: tokenHash, at: now, on: db)
            guard let row = try await db.first(StoreQuery(SQL.deleteSession, .blob(tokenHash))), let event else { return }
            try await audit.append([event(try row.decode(column: "account_id", as: String.self))], on: db)
        }
    }

    func purgeExpiredSessions(now: Date) async throws {
        try await connections.withConnection { db in
            try await db.run(StoreQuery(SQL.purgeSessions, .milliseconds(now)))
        }
    }
}
