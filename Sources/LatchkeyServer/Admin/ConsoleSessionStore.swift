import Foundation
import LatchkeyDatabase
import SQLKit

/// The admin console's sessions in the database, and the passkey assertion that opens or refreshes one.
struct ConsoleSessionStore: Sendable {
    /// The store whose connections and audit trail it shares.
    let store: Store

    var connections: DatabaseConnections { store.connections }
    var audit: AuditTrail { store.audit }

    /// How a console assertion's unit of work ended.
    enum ConsoleAssertionOutcome: Sendable {
        /// Verified and recorded (the passkey's counter, its last use): the account that made it.
        case verified(AccountRecord, credentialId: [UInt8])
        case unknownChallenge
        case unknownCredential
        case rejected(LoginVerdict)
    }

    /// Spends the challenge, runs `decide` on the stored passkey and its account, and records the
    /// passkey's use as a login does — but opens no ordinary session.
    func recordAssertion(
        challenge: UsedChallenge, credentialId: [UInt8], at: Date, decide: @escaping @Sendable (CredentialRecord, AccountRecord) -> LoginVerdict
    ) async throws -> ConsoleAssertionOutcome {
        do {
            return try await connections.transaction { db in
                guard try await CeremonySteps.useChallenge(challenge, on: db) else { throw ConsoleStop(outcome: .unknownChallenge) }
                guard let (credential, account) = try await CeremonySteps.credentialWithAccount(id: credentialId, on: db) else {
                    throw ConsoleStop(outcome: .unknownCredential)
                }
                let verdict = decide(credential, account)
                guard case .accept(let writes) = verdict else { throw ConsoleStop(outcome: .rejected(verdict)) }
                let moved = try await db.changedRows(StoreQuery(
                    SQL.recordLogin, .integer(Int64(writes.signCount)), .integer(writes.backupState), .integer(writes.userVerified),
                    .milliseconds(at), .blob(credential.id), .integer(Int64(credential.signCount))))
                guard moved == 1 else { throw ConsoleStop(outcome: .unknownChallenge) }
                return .verified(account, credentialId: credential.id)
            }
        } catch let stop as ConsoleStop {
            return stop.outcome
        }
    }

    private struct ConsoleStop: Error { let outcome: ConsoleAssertionOutcome }

    /// Stores a new console session, audited.
    func insert(
        tokenHash: [UInt8], accountId: String, credentialId: [UInt8], amr: String, at: Date, expiresAt: Date, event: AuditEvent
    ) async throws {
        try await connections.transaction { db in
            try await db.run(StoreQuery(
                SQL.insertConsoleSession, .blob(tokenHash), .text(accountId), .blob(credentialId), .text(amr), .milliseconds(at),
                .milliseconds(expiresAt)))
            try await audit.append([event], on: db)
        }
    }

    /// The live console session of `tokenHash` whose account is enabled and an administrator; nil otherwise.
    func session(tokenHash: [UInt8], now: Date) async throws -> ConsoleSession? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.consoleSession, .blob(tokenHash), .milliseconds(now))).map(ConsoleSession.init(row:))
        }
    }

    /// Notes a fresh user-verified assertion by the session's own account; false when the session is gone
    /// or another account's.
    func verify(tokenHash: [UInt8], accountId: String, at: Date) async throws -> Bool {
        try await connections.withConnection { db in
            try await db.changedRows(StoreQuery(SQL.verifyConsoleSession, .blob(tokenHash), .milliseconds(at), .text(accountId))) == 1
        }
    }

    func delete(tokenHash: [UInt8]) async throws {
        try await connections.withConnection { db in
            _ = try await db.changedRows(StoreQuery(SQL.deleteConsoleSession, .blob(tokenHash)))
        }
    }

    /// Console sessions past their end, and setup links past theirs (housekeeping).
    func purge(now: Date) async throws {
        try await connections.withConnection { db in
            _ = try await db.changedRows(StoreQuery(SQL.purgeConsoleSessions, .milliseconds(now)))
            _ = try await db.changedRows(StoreQuery(SQL.purgeSetupLinks, .milliseconds(now)))
        }
    }
}

extension Store {
    /// The admin console's own sessions and their step-up.
    var consoleSessions: ConsoleSessionStore { ConsoleSessionStore(store: self) }
}
