import LatchkeyAPI
import LatchkeyDatabase
import SQLKit

/// The ceremonies' writes on PostgreSQL, where every statement is a network round trip. Registrations
/// are transactions (`CeremonyStorage`'s own); a login is two round trips, both named prepared statements
/// (`CredentialWithAccountOnPostgres`, `FinishLoginOnPostgres`).
struct PostgresCeremonyStorage: CeremonyStorage {
    let connections: DatabaseConnections
    let audit: AuditTrail
    /// `Store.queuesOIDCLogouts`: a recovery that ends the account's sessions tells the apps they signed in to.
    var queuesOIDCLogouts = true

    /// A login in two round trips (SQLite's order, in a transaction, would take six): the credential and
    /// its account are read on their own, `decide` runs between the round trips, and the writes go as one
    /// call of a procedure that commits them before it answers (`SQL.finishLoginAtOnce`,
    /// `FinishLoginProcedure`), so no third round trip waits for the commit. What differs from SQLite's order:
    /// a response that fails verification is refused before its challenge is looked at (it writes nothing
    /// either way), and a login that loses the race for the counter has spent its challenge (it is refused
    /// either way; the person starts again with a new one).
    func finishLogin(
        challenge: UsedChallenge, credentialId: [UInt8],
        decide: @escaping @Sendable (CredentialRecord, AccountRecord) -> LoginVerdict
    ) async throws -> LoginOutcome {
        guard let (credential, account) = try await connections.withConnection({ db in
            try await CeremonySteps.credentialWithAccount(id: credentialId, on: db)
        }) else { return try await isUsed(challenge) ? .unknownChallenge : .unknownCredential }
        let writes: LoginWrites
        switch decide(credential, account) {
        case .reject(let reason): return try await isUsed(challenge) ? .unknownChallenge : .rejected(reason, accountId: account.id)
        case .accountDisabled: return .accountDisabled(accountId: account.id)
        case .accept(let accepted): writes = accepted
        }
        let origin = writes.events.first?.origin ?? .system
        let row = try await connections.withConnection { db in
            try await db.first(StoreQuery(
                SQL.finishLoginAtOnce, .blob(challenge.digest), .milliseconds(challenge.expiresAt),
                .integer(Int64(writes.signCount)), .integer(writes.backupState), .integer(writes.userVerified),
                .milliseconds(writes.session.createdAt), .blob(credential.id), .integer(Int64(credential.signCount)),
                .blob(writes.session.tokenHash), .milliseconds(writes.session.expiresAt),
                .text(origin.actor), .text(origin.clientAddress), .text(origin.userAgent), .text(origin.requestId),
                .text(Self.kindsAndDetails(writes.events)), .text(audit.webhookEndpointList)))
        }
        guard let row, try row.decode(column: "used", as: Int.self) == 1 else { return .unknownChallenge }
        guard try row.decode(column: "stored", as: Int.self) == 1 else { return .signCountMoved(accountId: account.id) }
        return .completed(account, writes)
    }

    /// The events' kinds and details as `SQL.finishLoginAtOnce` reads them: `[{"event":…,"detail":…}]`.
    /// The other columns a login's events share (its account, passkey, time and origin).
    static func kindsAndDetails(_ events: [AuditEvent]) -> String {
        var json = JSONWriter()
        json.array(events) { json, event in
            json.object { member in
                member.member("detail", event.detail)
                member.member("event", event.kind.rawValue)
            }
        }
        return String(decoding: json.bytes, as: UTF8.self)
    }

    /// A failed login whose challenge had already completed one is reported as the replay it is, as
    /// SQLite's order reports it: the winner of a race has moved the counter, and the losers' verification
    /// would otherwise blame the counter.
    private func isUsed(_ challenge: UsedChallenge) async throws -> Bool {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.isChallengeUsed, .blob(challenge.digest), .milliseconds(challenge.expiresAt))) != nil
        }
    }
}
