import Foundation
import SQLKit

/// All persistence, over SQLKit, with the same SQL on SQLite and PostgreSQL. Methods are the units of
/// work the service needs; each is one statement or one transaction.
struct Store: Sendable {
    let connections: DatabaseConnections

    enum Failure: Error, Equatable {
        /// A unique key already exists (credential id registered twice).
        case duplicate
    }

    // MARK: Ceremonies

    func insertCeremony(_ ceremony: CeremonyRecord) async throws {
        try await connections.withConnection { db in
            try await db.run(StoreQuery(
                SQL.insertCeremony, .blob(ceremony.challenge), .text(ceremony.kind.rawValue), .text(ceremony.accountId),
                .blob(ceremony.userHandle), .text(ceremony.displayName), .milliseconds(ceremony.expiresAt)))
        }
    }

    /// Removes the ceremony and returns it, in one statement: of any number of concurrent callers with the
    /// same challenge, exactly one gets it. Expired ceremonies are consumed too, and reported as absent.
    func consumeCeremony(challenge: [UInt8], now: Date) async throws -> CeremonyRecord? {
        try await connections.withConnection { db in try await Self.consumeCeremony(challenge: challenge, now: now, on: db) }
    }

    private static func consumeCeremony(challenge: [UInt8], now: Date, on db: any SQLDatabase) async throws -> CeremonyRecord? {
        try await db.first(StoreQuery(SQL.consumeCeremony, .blob(challenge))).flatMap { try ceremony(challenge: challenge, from: $0, now: now) }
    }

    func purgeExpiredCeremonies(now: Date) async throws {
        try await connections.withConnection { db in
            try await db.run(StoreQuery(SQL.purgeCeremonies, .milliseconds(now)))
        }
    }

    /// Keeps at most `limit` pending ceremonies (about: ceremonies that share the cut-off's expiry go
    /// together), dropping those that expire first. Returns how many went.
    @discardableResult
    func trimCeremonies(keeping limit: Int) async throws -> Int {
        try await connections.transaction { db in
            guard let row = try await db.first(StoreQuery(SQL.ceremonyCutoff, .integer(Int64(limit)))) else { return 0 }
            let cutoff = try row.decode(column: "expires_at", as: Int64.self)
            return try await db.all(StoreQuery(SQL.trimCeremonies, .integer(cutoff))).count
        }
    }

    /// Writes SQLite's log back into the database and empties it, so that a burst of writes does not leave
    /// a large log file behind; nothing to do on PostgreSQL.
    func truncateLog() async throws {
        guard connections.flavor == .sqlite else { return }
        try await connections.withConnection { db in try await db.raw("PRAGMA wal_checkpoint(TRUNCATE)").run() }
    }

    // MARK: Accounts and credentials

    /// The account and its first credential, together or not at all.
    func createAccount(_ account: AccountRecord, credential: CredentialRecord) async throws {
        try await connections.transaction { db in
            try await db.run(StoreQuery(
                SQL.insertAccount, .text(account.id), .blob(account.userHandle), .text(account.displayName), .text(account.credo),
                .milliseconds(account.createdAt), .milliseconds(account.updatedAt)))
            try await insert(credential, on: db)
        }
    }

    func addCredential(_ credential: CredentialRecord) async throws {
        try await connections.transaction { db in try await insert(credential, on: db) }
    }

    private func insert(_ c: CredentialRecord, on db: any SQLDatabase) async throws {
        // ON CONFLICT DO NOTHING … RETURNING: a duplicate id gives no row instead of a driver error, on
        // both databases, and also when two registrations of one id race (PostgreSQL makes the second
        // wait for the first and then skip; a check before the insert let both through to a 500).
        let inserted = try await db.first(StoreQuery(
            SQL.insertCredential, .blob(c.id), .text(c.accountId), .blob(c.publicKey), .integer(Int64(c.algorithm)),
            .integer(Int64(c.signCount)), .text(c.transports.joined(separator: ",")), .blob(c.aaguid), .text(c.attestationFormat),
            .integer(c.backupEligible), .integer(c.backupState), .integer(c.uvInitialized), .text(c.name),
            .milliseconds(c.createdAt), .integer(c.lastUsedAt.map(Timestamp.milliseconds)), .integer(c.attestationVerified)))
        if inserted == nil { throw Failure.duplicate }
    }

    func account(id: String) async throws -> AccountRecord? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.account, .text(id))).map(Self.account(from:))
        }
    }

    func updateAccount(id: String, displayName: String?, credo: String?, now: Date) async throws -> AccountRecord? {
        try await connections.transaction { db in
            guard var account = try await db.first(StoreQuery(SQL.account, .text(id))).map(Self.account(from:)) else { return nil }
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
        let credential = try credential(from: row)
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
            try await db.first(StoreQuery(SQL.credential, .blob(id))).map(Self.credential(from:))
        }
    }

    func credentials(accountId: String) async throws -> [CredentialRecord] {
        try await connections.withConnection { db in
            try await db.all(StoreQuery(SQL.accountCredentials, .text(accountId))).map(Self.credential(from:))
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
        /// No pending login ceremony has this challenge (never issued, expired, or already used).
        case unknownChallenge
        case unknownCredential
        case rejected(APIError)
        /// Another login with this credential moved the counter since it was read (possible clone).
        case signCountMoved
    }

    /// A login's database work in one transaction (one commit): the challenge is consumed first, by one
    /// atomic statement, so of any number of concurrent finishes exactly one gets past it; the credential
    /// and its account are read; `decide` verifies the assertion against them; an accepted login moves the
    /// counter — only from the value `decide` saw — and stores the session. Every outcome commits, so a
    /// rejected response has used up its challenge too; only a database failure rolls back.
    func finishLogin(
        challenge: [UInt8], credentialId: [UInt8], now: Date,
        decide: @Sendable (CredentialRecord, AccountRecord) -> LoginDecision
    ) async throws -> LoginOutcome {
        try await connections.transaction { db in
            let ceremony = try await Self.consumeCeremony(challenge: challenge, now: now, on: db)
            guard let ceremony, ceremony.kind == .login else { return .unknownChallenge }
            guard let (credential, account) = try await Self.credentialWithAccount(id: credentialId, on: db) else { return .unknownCredential }
            let writes: LoginWrites
            switch decide(credential, account) {
            case .reject(let error): return .rejected(error)
            case .accept(let accepted): writes = accepted
            }
            let moved = try await db.first(StoreQuery(
                SQL.recordLogin, .integer(Int64(writes.signCount)), .integer(writes.backupState), .integer(writes.userVerified),
                .milliseconds(writes.session.createdAt), .blob(credential.id), .integer(Int64(credential.signCount))))
            guard moved != nil else { return .signCountMoved }
            try await Self.insert(writes.session, on: db)
            return .completed(account, writes)
        }
    }

    func renameCredential(id: [UInt8], accountId: String, name: String) async throws -> CredentialRecord? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.renameCredential, .text(name), .blob(id), .text(accountId))).map(Self.credential(from:))
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
            try await db.run(StoreQuery(SQL.deleteCredentialSessions, .blob(id), .blob(keepingSession)))
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
            .milliseconds(session.expiresAt), .blob(session.credentialId)))
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

    // MARK: Row decoding

    /// A ceremony row; nil when it expired (an expired ceremony is treated as absent) or has an unknown kind.
    private static func ceremony(challenge: [UInt8], from row: any SQLRow, now: Date) throws -> CeremonyRecord? {
        let expiresAt = Timestamp.date(try row.decode(column: "expires_at", as: Int64.self))
        guard expiresAt > now, let kind = CeremonyRecord.Kind(rawValue: try row.decode(column: "kind", as: String.self)) else { return nil }
        return CeremonyRecord(
            challenge: challenge, kind: kind, accountId: try row.decode(column: "account_id", as: String?.self),
            userHandle: try row.decode(column: "user_handle", as: Data?.self).map { Array($0) },
            displayName: try row.decode(column: "display_name", as: String?.self), expiresAt: expiresAt)
    }

    private static func account(from row: any SQLRow) throws -> AccountRecord {
        AccountRecord(
            id: try row.decode(column: "id", as: String.self),
            userHandle: Array(try row.decode(column: "user_handle", as: Data.self)),
            displayName: try row.decode(column: "display_name", as: String.self),
            credo: try row.decode(column: "credo", as: String.self),
            createdAt: Timestamp.date(try row.decode(column: "created_at", as: Int64.self)),
            updatedAt: Timestamp.date(try row.decode(column: "updated_at", as: Int64.self)))
    }

    private static func credential(from row: any SQLRow) throws -> CredentialRecord {
        let transports = try row.decode(column: "transports", as: String.self)
        return CredentialRecord(
            id: Array(try row.decode(column: "id", as: Data.self)),
            accountId: try row.decode(column: "account_id", as: String.self),
            publicKey: Array(try row.decode(column: "public_key", as: Data.self)),
            algorithm: try row.decode(column: "algorithm", as: Int.self),
            signCount: UInt32(clamping: try row.decode(column: "sign_count", as: Int64.self)),
            transports: transports.isEmpty ? [] : transports.split(separator: ",").map(String.init),
            aaguid: Array(try row.decode(column: "aaguid", as: Data.self)),
            attestationFormat: try row.decode(column: "attestation_format", as: String.self),
            backupEligible: try row.decode(column: "backup_eligible", as: Int.self) != 0,
            backupState: try row.decode(column: "backup_state", as: Int.self) != 0,
            uvInitialized: try row.decode(column: "uv_initialized", as: Int.self) != 0,
            name: try row.decode(column: "name", as: String.self),
            createdAt: Timestamp.date(try row.decode(column: "created_at", as: Int64.self)),
            lastUsedAt: try row.decode(column: "last_used_at", as: Int64?.self).map(Timestamp.date),
            attestationVerified: try row.decode(column: "attestation_verified", as: Int.self) != 0)
    }
}
