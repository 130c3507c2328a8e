import Foundation
import LatchkeyDatabase
import SQLKit

/// The statements the ceremonies run on either database, each on a connection or in a transaction its
/// caller chose: the pieces `SQLiteCeremonyStorage` and `PostgresCeremonyStorage` put in their own order,
/// written once.
enum CeremonySteps {
    /// Records that a challenge completed its ceremony: true the first time, false when it already had
    /// (on both databases a racing second insert waits for the first to commit, then finds it). Runs
    /// inside the ceremony's own transaction, so the mark and the ceremony's writes commit together.
    static func useChallenge(_ challenge: UsedChallenge, on db: any SQLDatabase) async throws -> Bool {
        try await db.changedRows(StoreQuery(SQL.useChallenge, .blob(challenge.digest), .milliseconds(challenge.expiresAt))) == 1
    }

    // MARK: Registration

    /// A new account's writes (`CeremonyStorage.createAccount`), inside the caller's transaction.
    static func createAccount(
        _ account: AccountRecord, credential: CredentialRecord, challenge: UsedChallenge?, on db: any SQLDatabase
    ) async throws {
        if let challenge, try await !useChallenge(challenge, on: db) { throw Store.Failure.challengeUsed }
        try await db.run(StoreQuery(
            SQL.insertAccount, .text(account.id), .blob(account.userHandle), .text(account.displayName), .text(account.credo),
            .milliseconds(account.createdAt), .milliseconds(account.updatedAt)))
        try await insert(credential, on: db)
    }

    /// Another passkey's writes (`CeremonyStorage.addCredential`), inside the caller's transaction.
    static func addCredential(_ credential: CredentialRecord, challenge: UsedChallenge?, limit: Int, on db: any SQLDatabase) async throws {
        if let challenge, try await !useChallenge(challenge, on: db) { throw Store.Failure.challengeUsed }
        if limit < .max {
            try await db.run(StoreQuery(SQL.lockAccount, .text(credential.accountId)))
            let count = try await db.first(StoreQuery(SQL.countAccountCredentials, .text(credential.accountId)))?
                .decode(column: "n", as: Int.self) ?? 0
            guard count < limit else { throw Store.Failure.tooManyPasskeys }
        }
        try await insert(credential, on: db)
    }

    private static func insert(_ c: CredentialRecord, on db: any SQLDatabase) async throws {
        // ON CONFLICT DO NOTHING … RETURNING: a duplicate id gives no row instead of a driver error, on
        // both databases, and also when two registrations of one id race (PostgreSQL makes the second
        // wait for the first and then skip; a check before the insert let both through to a 500).
        let inserted = try await db.first(StoreQuery(
            SQL.insertCredential, .blob(c.id), .text(c.accountId), .blob(c.publicKey), .integer(Int64(c.algorithm)),
            .integer(Int64(c.signCount)), .text(c.transports.joined(separator: ",")), .blob(c.aaguid), .text(c.attestationFormat),
            .integer(c.backupEligible), .integer(c.backupState), .integer(c.uvInitialized), .text(c.name),
            .milliseconds(c.createdAt), .integer(c.lastUsedAt.map(Timestamp.milliseconds)), .integer(c.attestationVerified),
            .integer(c.backupStateChangedAt.map(Timestamp.milliseconds)), .text(c.createdOrigin),
            .integer(c.discoverable.map { $0 ? 1 : 0 }), .integer(c.prfEnabled.map { $0 ? 1 : 0 })))
        if inserted == nil { throw Store.Failure.duplicate }
    }

    // MARK: Login

    /// A credential and the account that owns it, in one query (the login's look-up; prepared on PostgreSQL).
    static func credentialWithAccount(id: [UInt8], on db: any SQLDatabase) async throws -> (CredentialRecord, AccountRecord)? {
        guard let row = try await db.first(StoreQuery(SQL.credentialWithAccount, .blob(id))) else { return nil }
        let credential = try CredentialRecord(row: row)
        let account = AccountRecord(
            id: credential.accountId,
            userHandle: Array(try row.decode(column: "a_user_handle", as: Data.self)),
            displayName: try row.decode(column: "a_display_name", as: String.self),
            credo: try row.decode(column: "a_credo", as: String.self),
            createdAt: Timestamp.date(try row.decode(column: "a_created_at", as: Int64.self)),
            updatedAt: Timestamp.date(try row.decode(column: "a_updated_at", as: Int64.self)),
            disabledAt: try row.decode(column: "a_disabled_at", as: Int64?.self).map(Timestamp.date))
        return (credential, account)
    }
}
