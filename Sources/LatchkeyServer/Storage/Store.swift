import Foundation
import SQLKit

/// All persistence, over SQLKit, with the same SQL on SQLite and PostgreSQL. Methods are the units of
/// work the service needs; each is one statement or one transaction.
struct Store: Sendable {
    let connections: DatabaseConnections

    enum Failure: Error, Equatable {
        /// A unique key already exists (credential id registered twice).
        case duplicate
        /// The ceremony's challenge already completed a ceremony.
        case challengeUsed
        /// The account already holds as many passkeys as it may.
        case tooManyPasskeys
        /// A server key was neither there nor insertable (never expected: the insert ignores conflicts).
        case missingServerKey
    }

    // MARK: Challenges and keys

    /// Records that a challenge completed its ceremony: true the first time, false when it already had
    /// (on both databases a racing second insert waits for the first to commit, then finds it). Runs
    /// inside the ceremony's own transaction, so the mark and the ceremony's writes commit together.
    /// How long a used challenge's mark outlives the challenge. Instances of a cluster each read their
    /// own clock: without a margin, an instance whose clock runs ahead purges a mark while one whose
    /// clock runs behind still opens the challenge, and a captured assertion could be replayed for as
    /// long as the skew (third review, finding 8). Clocks kept by NTP are within milliseconds; a minute
    /// covers a badly kept one, and costs only a minute more of marks.
    static let usedChallengeGrace: TimeInterval = 60

    private static func useChallenge(_ challenge: UsedChallenge, on db: any SQLDatabase) async throws -> Bool {
        try await db.changedRows(StoreQuery(SQL.useChallenge, .blob(challenge.digest), .milliseconds(challenge.expiresAt))) == 1
    }

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

    /// The account and its first credential, together or not at all; with `challenge`, only if that
    /// challenge has not completed a ceremony yet (`Failure.challengeUsed`), and marked in the same commit.
    func createAccount(_ account: AccountRecord, credential: CredentialRecord, challenge: UsedChallenge? = nil) async throws {
        try await connections.transaction { db in
            if let challenge, try await !Self.useChallenge(challenge, on: db) { throw Failure.challengeUsed }
            try await db.run(StoreQuery(
                SQL.insertAccount, .text(account.id), .blob(account.userHandle), .text(account.displayName), .text(account.credo),
                .milliseconds(account.createdAt), .milliseconds(account.updatedAt)))
            try await insert(credential, on: db)
        }
    }

    /// Adds a passkey to an existing account, in the transaction that uses the ceremony's challenge,
    /// unless the account already holds `limit` (counted with the account's row locked, so concurrent
    /// additions cannot both see room for one).
    func addCredential(_ credential: CredentialRecord, challenge: UsedChallenge? = nil, limit: Int = .max) async throws {
        try await connections.transaction { db in
            if let challenge, try await !Self.useChallenge(challenge, on: db) { throw Failure.challengeUsed }
            if limit < .max {
                try await db.run(StoreQuery(SQL.lockAccount, .text(credential.accountId)))
                let count = try await db.first(StoreQuery(SQL.countAccountCredentials, .text(credential.accountId)))?
                    .decode(column: "n", as: Int.self) ?? 0
                guard count < limit else { throw Failure.tooManyPasskeys }
            }
            try await insert(credential, on: db)
        }
    }

    private func insert(_ c: CredentialRecord, on db: any SQLDatabase) async throws {
        // ON CONFLICT DO NOTHING … RETURNING: a duplicate id gives no row instead of a driver error, on
        // both databases, and also when two registrations of one id race (PostgreSQL makes the second
        // wait for the first and then skip; a check before the insert let both through to a 500).
        let inserted = try await db.first(StoreQuery(
            SQL.insertCredential, .blob(c.id), .text(c.accountId), .blob(c.publicKey), .integer(Int64(c.algorithm)),
            .integer(Int64(c.signCount)), .text(c.transports.joined(separator: ",")), .blob(c.aaguid), .text(c.attestationFormat),
            .integer(c.backupEligible), .integer(c.backupState), .integer(c.uvInitialized), .text(c.name),
            .milliseconds(c.createdAt), .integer(c.lastUsedAt.map(Timestamp.milliseconds)), .integer(c.attestationVerified),
            .integer(c.backupStateChangedAt.map(Timestamp.milliseconds)), .text(c.createdOrigin)))
        if inserted == nil { throw Failure.duplicate }
    }

    func account(id: String) async throws -> AccountRecord? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.account, .text(id))).map(AccountRecord.init(row:))
        }
    }

    func updateAccount(id: String, displayName: String?, credo: String?, now: Date) async throws -> AccountRecord? {
        try await connections.transaction { db in
            guard var account = try await db.first(StoreQuery(SQL.account, .text(id))).map(AccountRecord.init(row:)) else { return nil }
            if let displayName { account.displayName = displayName }
            if let credo { account.credo = credo }
            account.updatedAt = now
            try await db.run(StoreQuery(SQL.updateAccount, .text(account.displayName), .text(account.credo), .milliseconds(now), .text(id)))
            return account
        }
    }

    /// Deletes the account; its credentials, sessions and pending ceremonies go with it (`SQL.deleteAccount`).
    func deleteAccount(id: String) async throws {
        try await connections.transaction { db in
            for statement in SQL.deleteAccount {
                try await db.run(StoreQuery(statement, .text(id)))
            }
        }
    }

    /// A credential and the account that owns it, in one query (the login's look-up).
    private static func credentialWithAccount(id: [UInt8], on db: any SQLDatabase) async throws -> (CredentialRecord, AccountRecord)? {
        guard let row = try await db.first(StoreQuery(SQL.credentialWithAccount, .blob(id))) else { return nil }
        let credential = try CredentialRecord(row: row)
        let account = AccountRecord(
            id: credential.accountId,
            userHandle: Array(try row.decode(column: "a_user_handle", as: Data.self)),
            displayName: try row.decode(column: "a_display_name", as: String.self),
            credo: try row.decode(column: "a_credo", as: String.self),
            createdAt: Timestamp.date(try row.decode(column: "a_created_at", as: Int64.self)),
            updatedAt: Timestamp.date(try row.decode(column: "a_updated_at", as: Int64.self)))
        return (credential, account)
    }

    func credential(id: [UInt8]) async throws -> CredentialRecord? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.credential, .blob(id))).map(CredentialRecord.init(row:))
        }
    }

    func credentials(accountId: String) async throws -> [CredentialRecord] {
        try await connections.withConnection { db in
            try await db.all(StoreQuery(SQL.accountCredentials, .text(accountId))).map(CredentialRecord.init(row:))
        }
    }

    /// What a login's verification decided about the credential the response names.
    enum LoginDecision: Sendable {
        case accept(LoginWrites)
        case reject(APIError)
    }

    enum LoginOutcome: Sendable {
        /// The session is stored; the writes are what `decide` accepted.
        case completed(AccountRecord, LoginWrites)
        /// The challenge already completed a login.
        case unknownChallenge
        case unknownCredential
        case rejected(APIError)
        /// Another login with this credential moved the counter since it was read (possible clone).
        case signCountMoved
    }

    /// A login's database work in one transaction (one commit): the challenge is marked used first, by one
    /// atomic statement, so of any number of concurrent finishes exactly one gets past it; the credential
    /// and its account are read; `decide` verifies the assertion against them; an accepted login moves the
    /// counter — only from the value `decide` saw — and stores the session. Any other outcome rolls the
    /// transaction back: a response that fails writes nothing (an anonymous caller cannot make the server
    /// store anything without a valid passkey), and its challenge stays usable until it expires.
    func finishLogin(
        challenge: UsedChallenge, credentialId: [UInt8],
        decide: @escaping @Sendable (CredentialRecord, AccountRecord) -> LoginDecision
    ) async throws -> LoginOutcome {
        if connections.flavor == .postgres {
            return try await finishLoginInTwoRoundTrips(challenge: challenge, credentialId: credentialId, decide: decide)
        }
        do {
            return try await connections.transaction { db in
                guard try await Self.useChallenge(challenge, on: db) else { throw Unfinished(outcome: .unknownChallenge) }
                guard let (credential, account) = try await Self.credentialWithAccount(id: credentialId, on: db) else {
                    throw Unfinished(outcome: .unknownCredential)
                }
                let writes: LoginWrites
                switch decide(credential, account) {
                case .reject(let error): throw Unfinished(outcome: .rejected(error))
                case .accept(let accepted): writes = accepted
                }
                let moved = try await db.changedRows(StoreQuery(
                    SQL.recordLogin, .integer(Int64(writes.signCount)), .integer(writes.backupState), .integer(writes.userVerified),
                    .milliseconds(writes.session.createdAt), .blob(credential.id), .integer(Int64(credential.signCount))))
                guard moved == 1 else { throw Unfinished(outcome: .signCountMoved) }
                try await Self.insert(writes.session, on: db)
                return .completed(account, writes)
            }
        } catch let unfinished as Unfinished {
            return unfinished.outcome
        }
    }

    /// PostgreSQL's login: every statement is a network round trip there (six in the transaction above),
    /// so the credential and its account are read on their own, `decide` runs between the round trips,
    /// and the writes go as one statement (`SQL.finishLoginAtOnce`) that is its own transaction. What
    /// changes against SQLite's order: a response that fails verification is refused before its challenge
    /// is looked at (it writes nothing either way), and a login that loses the race for the counter has
    /// spent its challenge (it is refused either way; the person starts again with a new one).
    private func finishLoginInTwoRoundTrips(
        challenge: UsedChallenge, credentialId: [UInt8],
        decide: @escaping @Sendable (CredentialRecord, AccountRecord) -> LoginDecision
    ) async throws -> LoginOutcome {
        guard let (credential, account) = try await connections.withConnection({ db in
            try await Self.credentialWithAccount(id: credentialId, on: db)
        }) else { return try await isUsed(challenge) ? .unknownChallenge : .unknownCredential }
        let writes: LoginWrites
        switch decide(credential, account) {
        case .reject(let error): return try await isUsed(challenge) ? .unknownChallenge : .rejected(error)
        case .accept(let accepted): writes = accepted
        }
        let row = try await connections.withConnection { db in
            try await db.first(StoreQuery(
                SQL.finishLoginAtOnce, .blob(challenge.digest), .milliseconds(challenge.expiresAt),
                .integer(Int64(writes.signCount)), .integer(writes.backupState), .integer(writes.userVerified),
                .milliseconds(writes.session.createdAt), .blob(credential.id), .integer(Int64(credential.signCount)),
                .blob(writes.session.tokenHash), .milliseconds(writes.session.expiresAt)))
        }
        guard let row, try row.decode(column: "used", as: Int.self) == 1 else { return .unknownChallenge }
        guard try row.decode(column: "stored", as: Int.self) == 1 else { return .signCountMoved }
        return .completed(account, writes)
    }

    /// A failed login whose challenge had already completed one is reported as the replay it is, as
    /// SQLite's order reports it: the winner of a race has moved the counter, and the losers' verification
    /// would otherwise blame the counter.
    private func isUsed(_ challenge: UsedChallenge) async throws -> Bool {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.isChallengeUsed, .blob(challenge.digest), .milliseconds(challenge.expiresAt))) != nil
        }
    }

    /// Carries a login's outcome out of its transaction by throwing, which rolls the transaction back.
    private struct Unfinished: Error { let outcome: LoginOutcome }

    func renameCredential(id: [UInt8], accountId: String, name: String) async throws -> CredentialRecord? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.renameCredential, .text(name), .blob(id), .text(accountId))).map(CredentialRecord.init(row:))
        }
    }

    enum DeleteCredentialOutcome: Sendable { case deleted, notFound, lastPasskey }

    /// Deletes one of the account's credentials unless it is the last one (the account would be locked out),
    /// and ends the sessions it opened — all but the caller's (`keepingSession`, a token hash): whoever
    /// removes a lost or stolen passkey wants the sessions made with it gone, and stays signed in.
    func deleteCredential(id: [UInt8], accountId: String, keepingSession: [UInt8]) async throws -> DeleteCredentialOutcome {
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
            try await db.run(StoreQuery(SQL.deleteCredentialSessions, .blob(id), .blob(keepingSession), .text(accountId)))
            return .deleted
        }
    }

    // MARK: Sessions

    func insertSession(_ session: NewSession) async throws {
        try await connections.withConnection { db in try await Self.insert(session, on: db) }
    }

    private static func insert(_ session: NewSession, on db: any SQLDatabase) async throws {
        try await db.run(StoreQuery(
            SQL.insertSession, .blob(session.tokenHash), .text(session.accountId), .milliseconds(session.createdAt),
            .milliseconds(session.expiresAt), .blob(session.credentialId), .integer(session.userVerified)))
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
    func sessionAccount(tokenHash: [UInt8], now: Date) async throws -> String? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.sessionAccount, .blob(tokenHash), .milliseconds(now)))
                .map { try $0.decode(column: "account_id", as: String.self) }
        }
    }

    /// Ends every session of the account ("sign out everywhere").
    func deleteSessions(accountId: String) async throws {
        try await connections.withConnection { db in
            try await db.run(StoreQuery(SQL.deleteAccountSessions, .text(accountId)))
        }
    }

    func deleteSession(tokenHash: [UInt8]) async throws {
        try await connections.withConnection { db in
            try await db.run(StoreQuery(SQL.deleteSession, .blob(tokenHash)))
        }
    }

    func purgeExpiredSessions(now: Date) async throws {
        try await connections.withConnection { db in
            try await db.run(StoreQuery(SQL.purgeSessions, .milliseconds(now)))
        }
    }
}
