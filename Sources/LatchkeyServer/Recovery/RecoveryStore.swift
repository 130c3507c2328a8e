import Foundation
import LatchkeyDatabase
import SQLKit

/// Recovery grants (`RecoveryService`): issued by an operator, exchanged once for a restricted session,
/// used once by the passkey that session adds. Every change writes its audit event in its transaction.
struct RecoveryStore: Sendable {
    /// The store whose connections and audit trail it shares.
    let store: Store

    var connections: DatabaseConnections { store.connections }
    var audit: AuditTrail { store.audit }

    /// Stores a new grant for its account, revoking the account's outstanding ones (one at a time).
    /// False when the id was taken (the caller draws another).
    func issue(_ grant: RecoveryGrantRecord, events: @escaping @Sendable (_ revoked: Int) -> [AuditEvent]) async throws -> Bool {
        try await connections.transaction { db in
            try await db.run(StoreQuery(SQL.lockAccount, .text(grant.accountId)))
            let revoked = try await db.changedRows(StoreQuery(SQL.revokeAccountRecoveryGrants, .text(grant.accountId), .milliseconds(grant.issuedAt)))
            let inserted = try await db.first(StoreQuery(
                SQL.insertRecoveryGrant, .text(grant.id), .blob(grant.secretHash), .text(grant.accountId), .text(grant.purpose),
                .milliseconds(grant.issuedAt), .milliseconds(grant.expiresAt), .text(grant.issuedBy)))
            guard inserted != nil else { throw Store.Failure.duplicate }
            try await audit.append(events(revoked), on: db)
            return true
        }
    }

    func grant(id: String) async throws -> RecoveryGrantRecord? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.recoveryGrant, .text(id))).map(RecoveryGrantRecord.init(row:))
        }
    }

    /// The account's grants, newest first; or the newest `limit` of every account's.
    func grants(accountId: String?, limit: Int = 100) async throws -> [RecoveryGrantRecord] {
        let query = accountId.map { StoreQuery(SQL.accountRecoveryGrants, .text($0)) } ?? StoreQuery(SQL.recentRecoveryGrants, .integer(Int64(limit)))
        return try await connections.withConnection { db in
            try await db.all(query).map(RecoveryGrantRecord.init(row:))
        }
    }

    /// Revokes a grant that is not used yet, and ends the restricted session it may have given; `event`
    /// gets the grant's account. False when there was no such live grant.
    func revoke(id: String, at: Date, event: @escaping @Sendable (String) -> AuditEvent) async throws -> Bool {
        try await connections.transaction { db in
            guard let row = try await db.first(StoreQuery(SQL.revokeRecoveryGrant, .text(id), .milliseconds(at))) else { return false }
            _ = try await db.changedRows(StoreQuery(SQL.deleteRecoveryGrantSessions, .text(id)))
            try await audit.append([event(try row.decode(column: "account_id", as: String.self))], on: db)
            return true
        }
    }

    /// Counts a wrong secret for the grant, revoking it at `limit` failures; `event` is the refusal's
    /// audit entry. Returns the failures so far.
    @discardableResult
    func fail(id: String, at: Date, limit: Int, event: AuditEvent) async throws -> Int {
        try await connections.transaction { db in
            let failures = try await db.first(StoreQuery(SQL.failRecoveryGrant, .text(id), .milliseconds(at), .integer(Int64(limit))))?
                .decode(column: "failed_attempts", as: Int.self) ?? 0
            try await audit.append([event], on: db)
            return failures
        }
    }

    /// The exchange: marks the grant exchanged and stores the restricted session, in one transaction;
    /// nil when the grant was exchanged, used, revoked or expired meanwhile (of concurrent exchanges one
    /// wins).
    func exchange(id: String, session: NewSession, event: AuditEvent) async throws -> String? {
        try await connections.transaction { db in
            guard let row = try await db.first(StoreQuery(SQL.exchangeRecoveryGrant, .text(id), .milliseconds(session.createdAt))) else {
                return nil
            }
            let accountId = try row.decode(column: "account_id", as: String.self)
            try await db.run(StoreQuery(
                SQL.insertRecoverySession, .blob(session.tokenHash), .text(accountId), .milliseconds(session.createdAt),
                .milliseconds(session.expiresAt), .text(id)))
            try await audit.append([event], on: db)
            return accountId
        }
    }
}

extension Store {
    /// Recovery grants: issued, exchanged, used, revoked.
    var recovery: RecoveryStore { RecoveryStore(store: self) }
}
