import Foundation
import LatchkeyDatabase
import SQLKit
import WebAuthn

/// The back-channel logout outbox (`OIDCLogoutDelivery` reads it). The transactions that end a person's
/// sessions, disable them or take an app's access back queue one logout token per client concerned, in
/// the same transaction (nothing is sent for a change that rolled back, nothing is lost for one that
/// committed); a delivery claims due rows under a lease, and deletes each when it is delivered or given up.
extension Store {
    /// A logout token claimed for this instance: what it says, and which attempt this is.
    struct OIDCLogoutDue: Sendable, Equatable {
        let jti: String
        let clientId: String
        let accountId: String
        let sid: String?
        let attempt: Int
    }

    /// Queues a logout token for every client (with a back-channel logout URI) session `sessionHash`
    /// signed the person in to, naming the session: before the session is deleted, on `db`.
    func queueOIDCLogouts(endingSession sessionHash: [UInt8], at now: Date, on db: any SQLDatabase) async throws {
        guard queuesOIDCLogouts else { return }
        for row in try await db.all(StoreQuery(SQL.oidcLogoutTargetsOfSession, .blob(sessionHash))) {
            try await queueOIDCLogout(
                clientId: try row.decode(column: "client_id", as: String.self), accountId: try row.decode(column: "account_id", as: String.self),
                sid: OIDCSessionID.of(sessionHash: sessionHash), at: now, on: db)
        }
    }

    /// The same for every open session of `accountId` (an operator ends them, or disables the account):
    /// before they are deleted, on `db`.
    func queueOIDCLogouts(endingSessionsOf accountId: String, at now: Date, on db: any SQLDatabase) async throws {
        guard queuesOIDCLogouts else { return }
        _ = try await queueOIDCLogouts(StoreQuery(SQL.oidcLogoutTargetsOfAccount, .text(accountId)), accountId: accountId, at: now, on: db)
    }

    /// The same for the sessions passkey `credentialId` opened but `keptSession` (the caller's, which
    /// stays; empty for none): the person or an operator removed the passkey, and its sessions end.
    func queueOIDCLogouts(
        endingSessionsOpenedBy credentialId: [UInt8], accountId: String, except keptSession: [UInt8], at now: Date, on db: any SQLDatabase
    ) async throws {
        guard queuesOIDCLogouts else { return }
        _ = try await queueOIDCLogouts(
            StoreQuery(SQL.oidcLogoutTargetsOfCredential, .text(accountId), .blob(credentialId), .blob(keptSession)),
            accountId: accountId, at: now, on: db)
    }

    /// The account is being deleted (by the person or an operator): a token naming each open session
    /// (`sid` and `sub`) for the apps they signed in to, and one naming only the person (`sub`: every
    /// session they have there) for each other app they gave access to — a consent or a live grant, say
    /// one with `offline_access` whose session ended long ago. Before the account's rows are deleted.
    func queueOIDCLogouts(deletingAccount accountId: String, at now: Date, on db: any SQLDatabase) async throws {
        guard queuesOIDCLogouts else { return }
        let told = try await queueOIDCLogouts(StoreQuery(SQL.oidcLogoutTargetsOfAccount, .text(accountId)), accountId: accountId, at: now, on: db)
        for row in try await db.all(StoreQuery(SQL.oidcLogoutClientsOfAccount, .text(accountId))) {
            let clientId = try row.decode(column: "client_id", as: String.self)
            guard !told.contains(clientId) else { continue }
            try await queueOIDCLogout(clientId: clientId, accountId: accountId, sid: nil, at: now, on: db)
        }
    }

    /// Queues a token for each (`client_id`, `session_hash`) row of `targets`; the clients told.
    private func queueOIDCLogouts(_ targets: StoreQuery, accountId: String, at now: Date, on db: any SQLDatabase) async throws -> Set<String> {
        var clients: Set<String> = []
        for row in try await db.all(targets) {
            let session = Array(try row.decode(column: "session_hash", as: Data.self))
            let clientId = try row.decode(column: "client_id", as: String.self)
            clients.insert(clientId)
            try await queueOIDCLogout(clientId: clientId, accountId: accountId, sid: OIDCSessionID.of(sessionHash: session), at: now, on: db)
        }
        return clients
    }

    /// Empties the outbox: with OpenID Connect off nothing delivers it (`Housekeeping`), so what an
    /// earlier run or `latchkey admin` queued would stay for ever. How many were dropped.
    @discardableResult
    func purgeOIDCLogouts() async throws -> Int {
        try await connections.withConnection { db in try await db.changedRows(StoreQuery(SQL.purgeOIDCLogouts)) }
    }

    /// The person took `clientId`'s access back: one token naming only them (`sub`), which ends every
    /// session they have at that app, when it has a back-channel logout URI.
    func queueOIDCLogout(revokingApp clientId: String, accountId: String, at now: Date, on db: any SQLDatabase) async throws {
        guard queuesOIDCLogouts else { return }
        guard try await db.first(StoreQuery(SQL.oidcClientHasBackchannel, .text(clientId))) != nil else { return }
        try await queueOIDCLogout(clientId: clientId, accountId: accountId, sid: nil, at: now, on: db)
    }

    private func queueOIDCLogout(clientId: String, accountId: String, sid: String?, at now: Date, on db: any SQLDatabase) async throws {
        try await db.run(StoreQuery(
            SQL.insertOIDCLogout, .text(Base64URL.encode(RandomBytes.make(16))), .text(clientId), .text(accountId), .text(sid),
            .milliseconds(now)))
    }

    /// Claims up to `limit` logout tokens due by `now`, each leased until `leaseUntil`.
    func claimOIDCLogouts(now: Date, leaseUntil: Date, limit: Int) async throws -> [OIDCLogoutDue] {
        let statement = connections.flavor == .postgres ? SQL.claimOIDCLogoutsOnPostgres : SQL.claimOIDCLogoutsOnSQLite
        return try await connections.transaction { db in
            try await db.all(StoreQuery(statement, .milliseconds(now), .milliseconds(leaseUntil), .integer(Int64(limit)))).map { row in
                OIDCLogoutDue(
                    jti: try row.decode(column: "jti", as: String.self), clientId: try row.decode(column: "client_id", as: String.self),
                    accountId: try row.decode(column: "account_id", as: String.self), sid: try row.decode(column: "sid", as: String?.self),
                    attempt: try row.decode(column: "attempts", as: Int.self))
            }.sorted { $0.jti < $1.jti }
        }
    }

    /// The logout token was delivered, or given up.
    func finishOIDCLogout(jti: String) async throws {
        try await connections.withConnection { db in try await db.run(StoreQuery(SQL.deleteOIDCLogout, .text(jti))) }
    }

    /// The delivery failed: try again at `next`, remembering why.
    func retryOIDCLogout(jti: String, next: Date, error: String) async throws {
        try await connections.withConnection { db in
            try await db.run(StoreQuery(SQL.retryOIDCLogout, .text(jti), .milliseconds(next), .text(String(error.prefix(200)))))
        }
    }

    /// Logout tokens not yet delivered.
    func pendingOIDCLogoutCount() async throws -> Int {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.countOIDCLogouts))?.decode(column: "n", as: Int.self) ?? 0
        }
    }
}
