import Foundation
import LatchkeyDatabase
import SQLKit

/// The custom claims operators give accounts and groups (`AdminService+Claims` changes them; the token
/// endpoint and UserInfo read `releasedOIDCClaims`). Each change is one transaction with its audit event.
struct OIDCClaimStore: Sendable {
    /// The store whose connections and audit trail it shares.
    let store: Store

    var connections: DatabaseConnections { store.connections }
    var audit: AuditTrail { store.audit }

    /// Whose claim: an account's (by id) or a group's (by name).
    enum ClaimHolder: Sendable, Equatable {
        case account(String)
        case group(String)
    }

    /// What a set did: stored, no such account, or the holder has as many claims as it may.
    enum ClaimSet: Sendable, Equatable { case stored, unknownAccount, full }

    func claims(of holder: ClaimHolder) async throws -> [OIDCCustomClaim] {
        try await connections.withConnection { db in
            switch holder {
            case .account(let id): try await db.all(StoreQuery(SQL.oidcAccountClaims, .text(id))).map(OIDCCustomClaim.init(row:))
            case .group(let name): try await db.all(StoreQuery(SQL.oidcGroupClaims, .text(name))).map(OIDCCustomClaim.init(row:))
            }
        }
    }

    /// Stores (or replaces) `claim` for `holder`, with `event`, unless the holder already has `limit` others.
    func set(_ claim: OIDCCustomClaim, of holder: ClaimHolder, limit: Int, event: AuditEvent) async throws -> ClaimSet {
        try await connections.transaction { db in
            let (key, count, upsert): (String, StoreStatement, StoreStatement)
            switch holder {
            case .account(let id):
                guard try await db.first(StoreQuery(SQL.accountExists, .text(id))) != nil else { return .unknownAccount }
                (key, count, upsert) = (id, SQL.countOIDCAccountClaims, SQL.upsertOIDCAccountClaim)
            case .group(let name):
                (key, count, upsert) = (name, SQL.countOIDCGroupClaims, SQL.upsertOIDCGroupClaim)
            }
            let others = try await db.first(StoreQuery(count, .text(key), .text(claim.name)))?.decode(column: "n", as: Int.self) ?? 0
            guard others < limit else { return .full }
            try await db.run(StoreQuery(upsert, .text(key), .text(claim.name), .text(claim.value), .text(claim.scope), .milliseconds(claim.updatedAt)))
            try await audit.append([event], on: db)
            return .stored
        }
    }

    /// Removes `holder`'s claim `name`, with `event`; false when it had none.
    func remove(named name: String, of holder: ClaimHolder, event: AuditEvent) async throws -> Bool {
        try await connections.transaction { db in
            let removed: (any SQLRow)?
            switch holder {
            case .account(let id): removed = try await db.first(StoreQuery(SQL.deleteOIDCAccountClaim, .text(id), .text(name)))
            case .group(let group): removed = try await db.first(StoreQuery(SQL.deleteOIDCGroupClaim, .text(group), .text(name)))
            }
            guard removed != nil else { return false }
            try await audit.append([event], on: db)
            return true
        }
    }

    /// The custom claims a person carries: their groups' (the first group by name wins a name), then their
    /// own over them; by name.
    func released(accountId: String, groups: [String]) async throws -> [OIDCCustomClaim] {
        try await connections.withConnection { db in
            var byName: [String: OIDCCustomClaim] = [:]
            if !groups.isEmpty {
                let member = Set(groups)
                for row in try await db.all(StoreQuery(SQL.oidcClaimsOfGroups, .text(groups.joined(separator: " ")))) {
                    guard member.contains(try row.decode(column: "group_name", as: String.self)) else { continue }
                    let claim = try OIDCCustomClaim(row: row)
                    if byName[claim.name] == nil { byName[claim.name] = claim }
                }
            }
            for row in try await db.all(StoreQuery(SQL.oidcAccountClaims, .text(accountId))) {
                let claim = try OIDCCustomClaim(row: row)
                byName[claim.name] = claim
            }
            return byName.values.sorted { $0.name < $1.name }
        }
    }
}

extension Store {
    /// Custom claims of accounts and groups.
    var oidcClaims: OIDCClaimStore { OIDCClaimStore(store: self) }
}
