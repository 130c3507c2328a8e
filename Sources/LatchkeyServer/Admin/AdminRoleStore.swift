import Foundation
import LatchkeyDatabase
import SQLKit
import WebAuthn

/// Administrators' roles and the first administrator's setup links in the database. Every change writes
/// its audit event in its own transaction.
struct AdminRoleStore: Sendable {
    /// The store whose connections and audit trail it shares.
    let store: Store

    var connections: DatabaseConnections { store.connections }
    var audit: AuditTrail { store.audit }

    /// Grants `role` (or replaces the scopes of the account's role); false when the account does not exist.
    func grant(_ role: AdminRole, event: AuditEvent) async throws -> Bool {
        try await connections.transaction { db in
            guard try await db.first(StoreQuery(SQL.accountExists, .text(role.accountId))) != nil else { return false }
            try await db.run(StoreQuery(
                SQL.upsertAdminRole, .text(role.accountId), .text(role.scopes.text), .milliseconds(role.grantedAt), .text(role.grantedBy)))
            try await audit.append([event], on: db)
            return true
        }
    }

    /// Takes the role away; false when the account held none. Its console sessions end with it.
    func revoke(accountId: String, event: AuditEvent) async throws -> Bool {
        try await connections.transaction { db in
            guard try await db.changedRows(StoreQuery(SQL.deleteAdminRole, .text(accountId))) == 1 else { return false }
            _ = try await db.changedRows(StoreQuery(SQL.deleteConsoleSessions, .text(accountId)))
            try await audit.append([event], on: db)
            return true
        }
    }

    func role(accountId: String) async throws -> AdminRole? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.adminRole, .text(accountId))).map(AdminRole.init(row:))
        }
    }

    func all() async throws -> [AdminRole] {
        try await connections.withConnection { db in
            try await db.all(StoreQuery(SQL.adminRoles)).map(AdminRole.init(row:))
        }
    }

    /// Whether any account is an administrator.
    func any() async throws -> Bool {
        try await connections.withConnection { db in try await db.first(StoreQuery(SQL.anyAdminRole)) != nil }
    }

    /// Stores a setup link's digest, and forgets the links that expired.
    func insertSetupLink(secretHash: [UInt8], at: Date, expiresAt: Date) async throws {
        try await connections.transaction { db in
            _ = try await db.changedRows(StoreQuery(SQL.purgeSetupLinks, .milliseconds(at)))
            try await db.run(StoreQuery(SQL.insertSetupLink, .blob(secretHash), .milliseconds(at), .milliseconds(expiresAt)))
        }
    }

    /// The first administrator: when `secretHash` is a live link's and no account holds the role yet,
    /// grants `role` and spends every link, in one transaction; false otherwise, and then the links stay
    /// (a wrong code must not spend the right one). The stored digests are compared in constant time; two
    /// uses at once serialize on the rows they delete, and the second finds its link gone.
    func useSetupLink(secretHash: [UInt8], role: AdminRole, now: Date, event: AuditEvent) async throws -> Bool {
        try await connections.transaction { db in
            func holds(_ links: [any SQLRow]) throws -> Bool {
                var live = false
                for link in links {
                    let hash = Array(try link.decode(column: "secret_hash", as: Data.self))
                    let expires = try link.decode(column: "expires_at", as: Int64.self)
                    if ConstantTime.equal(hash, secretHash), expires > Timestamp.milliseconds(now) { live = true }
                }
                return live
            }
            guard try holds(try await db.all(StoreQuery(SQL.setupLinks))) else { return false }
            let live = try holds(try await db.all(StoreQuery(SQL.takeSetupLinks)))
            guard live, try await db.first(StoreQuery(SQL.anyAdminRole)) == nil,
                  try await db.first(StoreQuery(SQL.accountExists, .text(role.accountId))) != nil
            else { return false }
            try await db.run(StoreQuery(
                SQL.upsertAdminRole, .text(role.accountId), .text(role.scopes.text), .milliseconds(role.grantedAt), .text(role.grantedBy)))
            try await audit.append([event], on: db)
            return true
        }
    }
}

extension Store {
    /// Who is an administrator, and the first one's setup link.
    var adminRoles: AdminRoleStore { AdminRoleStore(store: self) }
}
