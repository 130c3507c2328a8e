import Foundation
import LatchkeyDatabase
import SQLKit

/// The admin API's keys (`AdminService`): their secrets as SHA-256 only, revoked for good, their last use kept
/// to the minute. Every change writes its audit event in its transaction.
struct AdminKeyStore: Sendable {
    /// The store whose connections and audit trail it shares.
    let store: Store

    var connections: DatabaseConnections { store.connections }
    var audit: AuditTrail { store.audit }

    func insert(_ key: AdminKeyRecord, event: AuditEvent) async throws {
        try await connections.transaction { db in
            try await db.run(StoreQuery(
                SQL.insertAdminKey, .text(key.id), .blob(key.secretHash), .text(key.scope.rawValue), .text(key.name),
                .milliseconds(key.createdAt), .text(key.createdBy)))
            try await audit.append([event], on: db)
        }
    }

    func key(id: String) async throws -> AdminKeyRecord? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.adminKey, .text(id))).map(AdminKeyRecord.init(row:))
        }
    }

    func all() async throws -> [AdminKeyRecord] {
        try await connections.withConnection { db in
            try await db.all(StoreQuery(SQL.adminKeys)).map(AdminKeyRecord.init(row:))
        }
    }

    /// Revokes a key (for good); false when there is no such live key.
    func revoke(id: String, at: Date, event: AuditEvent) async throws -> Bool {
        try await connections.transaction { db in
            guard try await db.changedRows(StoreQuery(SQL.revokeAdminKey, .text(id), .milliseconds(at))) == 1 else { return false }
            try await audit.append([event], on: db)
            return true
        }
    }

    /// Records that a key was used now (at most once a minute).
    func touch(id: String, now: Date) async throws {
        try await connections.withConnection { db in
            _ = try await db.changedRows(StoreQuery(SQL.touchAdminKey, .text(id), .milliseconds(now), .milliseconds(now - 60)))
        }
    }
}

extension Store {
    /// The admin API's keys.
    var adminKeys: AdminKeyStore { AdminKeyStore(store: self) }
}
