import LatchkeyDatabase
import SQLKit

/// The ceremonies' writes on SQLite. A statement costs no round trip there (the driver calls into the
/// library on the calling thread), and what a write costs is its commit; so each ceremony is one
/// transaction (registrations as `CeremonyStorage` has them), and `DatabaseConnections.transaction`
/// hands it to the `CommitGroup`, which commits the transactions that arrive together once.
struct SQLiteCeremonyStorage: CeremonyStorage {
    let connections: DatabaseConnections
    let audit: AuditTrail
    /// `Store.queuesOIDCLogouts`: a recovery that ends the account's sessions tells the apps they signed in to.
    var queuesOIDCLogouts = true

    /// A login in one transaction (one commit, shared with its group): the challenge is marked used first,
    /// by one atomic statement, so of any number of concurrent finishes exactly one gets past it; the
    /// credential and its account are read; `decide` verifies the assertion against them; an accepted
    /// login moves the counter — only from the value `decide` saw — and stores the session. Any other
    /// outcome rolls the transaction back: a response that fails writes nothing (an anonymous caller
    /// cannot make the server store anything without a valid passkey), and its challenge stays usable
    /// until it expires.
    func finishLogin(
        challenge: UsedChallenge, credentialId: [UInt8],
        decide: @escaping @Sendable (CredentialRecord, AccountRecord) -> LoginVerdict
    ) async throws -> LoginOutcome {
        do {
            return try await connections.transaction { db in
                guard try await CeremonySteps.useChallenge(challenge, on: db) else { throw Unfinished(outcome: .unknownChallenge) }
                guard let (credential, account) = try await CeremonySteps.credentialWithAccount(id: credentialId, on: db) else {
                    throw Unfinished(outcome: .unknownCredential)
                }
                let writes: LoginWrites
                switch decide(credential, account) {
                case .reject(let reason): throw Unfinished(outcome: .rejected(reason, accountId: account.id))
                case .accountDisabled: throw Unfinished(outcome: .accountDisabled(accountId: account.id))
                case .accept(let accepted): writes = accepted
                }
                let moved = try await db.changedRows(StoreQuery(
                    SQL.recordLogin, .integer(Int64(writes.signCount)), .integer(writes.backupState), .integer(writes.userVerified),
                    .milliseconds(writes.session.createdAt), .blob(credential.id), .integer(Int64(credential.signCount))))
                guard moved == 1 else { throw Unfinished(outcome: .signCountMoved(accountId: account.id)) }
                try await writes.session.insert(on: db)
                try await audit.append(writes.events, on: db)
                return .completed(account, writes)
            }
        } catch let unfinished as Unfinished {
            return unfinished.outcome
        }
    }

    /// Carries a login's outcome out of its transaction by throwing, which rolls the transaction back.
    private struct Unfinished: Error { let outcome: LoginOutcome }
}
