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
            try await db.raw("""
                INSERT INTO ceremonies (challenge, kind, account_id, user_handle, display_name, expires_at)
                VALUES (\(bind: Data(ceremony.challenge)), \(bind: ceremony.kind.rawValue), \(bind: ceremony.accountId),
                        \(bind: ceremony.userHandle.map { Data($0) }), \(bind: ceremony.displayName),
                        \(bind: Timestamp.milliseconds(ceremony.expiresAt)))
                """).run()
        }
    }

    /// Removes the ceremony and returns it, in one statement: of any number of concurrent callers with the
    /// same challenge, exactly one gets it. Expired ceremonies are consumed too, and reported as absent.
    func consumeCeremony(challenge: [UInt8], now: Date) async throws -> CeremonyRecord? {
        try await connections.withConnection { db in try await Self.consumeCeremony(challenge: challenge, now: now, on: db) }
    }

    private static func consumeCeremony(challenge: [UInt8], now: Date, on db: any SQLDatabase) async throws -> CeremonyRecord? {
        try await db.raw("""
            DELETE FROM ceremonies WHERE challenge = \(bind: Data(challenge))
            RETURNING kind, account_id, user_handle, display_name, expires_at
            """).first().flatMap { try ceremony(challenge: challenge, from: $0, now: now) }
    }

    func purgeExpiredCeremonies(now: Date) async throws {
        try await connections.withConnection { db in
            try await db.raw("DELETE FROM ceremonies WHERE expires_at <= \(bind: Timestamp.milliseconds(now))").run()
        }
    }

    // MARK: Accounts and credentials

    /// The account and its first credential, together or not at all.
    func createAccount(_ account: AccountRecord, credential: CredentialRecord) async throws {
        try await connections.transaction { db in
            try await db.raw("""
                INSERT INTO accounts (id, user_handle, display_name, credo, created_at, updated_at)
                VALUES (\(bind: account.id), \(bind: Data(account.userHandle)), \(bind: account.displayName), \(bind: account.credo),
                        \(bind: Timestamp.milliseconds(account.createdAt)), \(bind: Timestamp.milliseconds(account.updatedAt)))
                """).run()
            try await insert(credential, on: db)
        }
    }

    func addCredential(_ credential: CredentialRecord) async throws {
        try await connections.transaction { db in try await insert(credential, on: db) }
    }

    private func insert(_ c: CredentialRecord, on db: any SQLDatabase) async throws {
        // Checked first so that a duplicate is a clear conflict on both databases, not a driver error.
        if try await db.raw("SELECT id FROM credentials WHERE id = \(bind: Data(c.id))").first() != nil { throw Failure.duplicate }
        try await db.raw("""
            INSERT INTO credentials (id, account_id, public_key, algorithm, sign_count, transports, aaguid, attestation_format,
                                     backup_eligible, backup_state, uv_initialized, name, created_at, last_used_at)
            VALUES (\(bind: Data(c.id)), \(bind: c.accountId), \(bind: Data(c.publicKey)), \(bind: c.algorithm),
                    \(bind: Int64(c.signCount)), \(bind: c.transports.joined(separator: ",")), \(bind: Data(c.aaguid)),
                    \(bind: c.attestationFormat), \(bind: c.backupEligible ? 1 : 0), \(bind: c.backupState ? 1 : 0),
                    \(bind: c.uvInitialized ? 1 : 0), \(bind: c.name), \(bind: Timestamp.milliseconds(c.createdAt)),
                    \(bind: c.lastUsedAt.map(Timestamp.milliseconds)))
            """).run()
    }

    func account(id: String) async throws -> AccountRecord? {
        try await connections.withConnection { db in
            try await db.raw("SELECT id, user_handle, display_name, credo, created_at, updated_at FROM accounts WHERE id = \(bind: id)")
                .first().map(Self.account(from:))
        }
    }

    func updateAccount(id: String, displayName: String?, credo: String?, now: Date) async throws -> AccountRecord? {
        try await connections.transaction { db in
            guard var account = try await db.raw(
                "SELECT id, user_handle, display_name, credo, created_at, updated_at FROM accounts WHERE id = \(bind: id)"
            ).first().map(Self.account(from:)) else { return nil }
            if let displayName { account.displayName = displayName }
            if let credo { account.credo = credo }
            account.updatedAt = now
            try await db.raw("""
                UPDATE accounts SET display_name = \(bind: account.displayName), credo = \(bind: account.credo),
                    updated_at = \(bind: Timestamp.milliseconds(now)) WHERE id = \(bind: id)
                """).run()
            return account
        }
    }

    /// Deletes the account; its credentials, sessions and pending ceremonies go with it (foreign keys
    /// cascade, and the statements below make that explicit for any database that was opened without them).
    func deleteAccount(id: String) async throws {
        try await connections.transaction { db in
            try await db.raw("DELETE FROM sessions WHERE account_id = \(bind: id)").run()
            try await db.raw("DELETE FROM ceremonies WHERE account_id = \(bind: id)").run()
            try await db.raw("DELETE FROM credentials WHERE account_id = \(bind: id)").run()
            try await db.raw("DELETE FROM accounts WHERE id = \(bind: id)").run()
        }
    }

    /// A credential and the account that owns it, in one query (the login's look-up).
    private static func credentialWithAccount(id: [UInt8], on db: any SQLDatabase) async throws -> (CredentialRecord, AccountRecord)? {
        guard let row = try await db.raw("""
            SELECT \(unsafeRaw: qualifiedCredentialColumns),
                   a.user_handle AS a_user_handle, a.display_name AS a_display_name, a.credo AS a_credo,
                   a.created_at AS a_created_at, a.updated_at AS a_updated_at
            FROM credentials c JOIN accounts a ON a.id = c.account_id WHERE c.id = \(bind: Data(id))
            """).first() else { return nil }
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
            try await db.raw("SELECT \(unsafeRaw: Self.credentialColumns) FROM credentials WHERE id = \(bind: Data(id))")
                .first().map(Self.credential(from:))
        }
    }

    func credentials(accountId: String) async throws -> [CredentialRecord] {
        try await connections.withConnection { db in
            try await db.raw("""
                SELECT \(unsafeRaw: Self.credentialColumns) FROM credentials WHERE account_id = \(bind: accountId) ORDER BY created_at, id
                """).all().map(Self.credential(from:))
        }
    }

    /// What a login's verification decided about the credential the response names.
    enum LoginDecision: Sendable {
        case accept(LoginWrites)
        case reject(APIError)
    }

    enum LoginOutcome: Sendable {
        case completed(AccountRecord)
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
            let moved = try await db.raw("""
                UPDATE credentials SET sign_count = \(bind: Int64(writes.signCount)), backup_state = \(bind: writes.backupState ? 1 : 0),
                    uv_initialized = CASE WHEN \(bind: writes.userVerified ? 1 : 0) = 1 THEN 1 ELSE uv_initialized END,
                    last_used_at = \(bind: Timestamp.milliseconds(writes.session.createdAt))
                WHERE id = \(bind: Data(credential.id)) AND sign_count = \(bind: Int64(credential.signCount))
                RETURNING id
                """).first()
            guard moved != nil else { return .signCountMoved }
            try await Self.insert(writes.session, on: db)
            return .completed(account)
        }
    }

    func renameCredential(id: [UInt8], accountId: String, name: String) async throws -> CredentialRecord? {
        try await connections.withConnection { db in
            try await db.raw("""
                UPDATE credentials SET name = \(bind: name) WHERE id = \(bind: Data(id)) AND account_id = \(bind: accountId)
                RETURNING \(unsafeRaw: Self.credentialColumns)
                """).first().map(Self.credential(from:))
        }
    }

    enum DeleteCredentialOutcome: Sendable { case deleted, notFound, lastPasskey }

    /// Deletes one of the account's credentials unless it is the last one (the account would be locked out).
    func deleteCredential(id: [UInt8], accountId: String) async throws -> DeleteCredentialOutcome {
        try await connections.transaction { db in
            let ids = try await db.raw("SELECT id FROM credentials WHERE account_id = \(bind: accountId)").all()
                .map { Array(try $0.decode(column: "id", as: Data.self)) }
            guard ids.contains(id) else { return .notFound }
            guard ids.count > 1 else { return .lastPasskey }
            try await db.raw("DELETE FROM credentials WHERE id = \(bind: Data(id)) AND account_id = \(bind: accountId)").run()
            return .deleted
        }
    }

    // MARK: Sessions

    func insertSession(_ session: NewSession) async throws {
        try await connections.withConnection { db in try await Self.insert(session, on: db) }
    }

    private static func insert(_ session: NewSession, on db: any SQLDatabase) async throws {
        try await db.raw("""
            INSERT INTO sessions (token_hash, account_id, created_at, expires_at)
            VALUES (\(bind: Data(session.tokenHash)), \(bind: session.accountId), \(bind: Timestamp.milliseconds(session.createdAt)),
                    \(bind: Timestamp.milliseconds(session.expiresAt)))
            """).run()
    }

    /// The account of an unexpired session, found by the token's hash (an index look-up, so the time
    /// taken does not depend on how much of a guessed token is right).
    func sessionAccount(tokenHash: [UInt8], now: Date) async throws -> String? {
        try await connections.withConnection { db in
            try await db.raw("""
                SELECT account_id FROM sessions WHERE token_hash = \(bind: Data(tokenHash)) AND expires_at > \(bind: Timestamp.milliseconds(now))
                """).first().map { try $0.decode(column: "account_id", as: String.self) }
        }
    }

    func deleteSession(tokenHash: [UInt8]) async throws {
        try await connections.withConnection { db in
            try await db.raw("DELETE FROM sessions WHERE token_hash = \(bind: Data(tokenHash))").run()
        }
    }

    func purgeExpiredSessions(now: Date) async throws {
        try await connections.withConnection { db in
            try await db.raw("DELETE FROM sessions WHERE expires_at <= \(bind: Timestamp.milliseconds(now))").run()
        }
    }

    // MARK: Row decoding

    private static let credentialColumns = """
        id, account_id, public_key, algorithm, sign_count, transports, aaguid, attestation_format, backup_eligible, \
        backup_state, uv_initialized, name, created_at, last_used_at
        """

    /// The credential columns as `c.<name>`, for the join with accounts; built once.
    private static let qualifiedCredentialColumns = credentialColumns.split(separator: ",")
        .map { "c." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: ", ")

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
            lastUsedAt: try row.decode(column: "last_used_at", as: Int64?.self).map(Timestamp.date))
    }
}
