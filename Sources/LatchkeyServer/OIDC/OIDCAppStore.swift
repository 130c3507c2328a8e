import Foundation
import LatchkeyDatabase
import SQLKit

/// "Apps with access": the clients a person let in, and the person taking that back. Taking it back
/// removes the consent (the next sign-in asks again) and revokes every grant of the account for the
/// client — its refresh tokens and access tokens stop working — in one transaction with its audit event
/// and, when the app has a back-channel logout URI, a logout token naming the person.
struct OIDCAppStore: Sendable {
    /// The store whose connections and audit trail it shares.
    let store: Store

    var connections: DatabaseConnections { store.connections }
    var audit: AuditTrail { store.audit }

    /// The apps the account consented to or holds a live grant for, by name.
    func apps(accountId: String, now: Date) async throws -> [OIDCAppAccess] {
        try await connections.withConnection { db in
            struct Gathered {
                var name: String
                var logoType: String
                var scopes: Set<String> = []
                var listed = false
                var first: Date?
                var last: Date?
            }
            var apps: [String: Gathered] = [:]
            for row in try await db.all(StoreQuery(SQL.oidcAppConsents, .text(accountId))) {
                let id = try row.decode(column: "client_id", as: String.self)
                var app = Gathered(name: try row.decode(column: "name", as: String.self), logoType: try row.decode(column: "logo_type", as: String.self))
                app.scopes.formUnion(OIDCClientRecord.list(try row.decode(column: "scopes", as: String.self)))
                app.listed = true
                app.first = Timestamp.date(try row.decode(column: "granted_at", as: Int64.self))
                apps[id] = app
            }
            for row in try await db.all(StoreQuery(SQL.oidcAppGrants, .text(accountId), .milliseconds(now))) {
                let id = try row.decode(column: "client_id", as: String.self)
                let name = try row.decode(column: "name", as: String.self)
                let logoType = try row.decode(column: "logo_type", as: String.self)
                var app = apps[id] ?? Gathered(name: name, logoType: logoType)
                let first = Timestamp.date(try row.decode(column: "first_at", as: Int64.self))
                let last = Timestamp.date(try row.decode(column: "last_at", as: Int64.self))
                let live = try row.decode(column: "live", as: Int64.self)
                if live != 0 { app.listed = true }
                app.first = min(app.first ?? first, first)
                app.last = max(app.last ?? last, last)
                apps[id] = app
            }
            for row in try await db.all(StoreQuery(SQL.oidcAppLiveScopes, .text(accountId), .milliseconds(now))) {
                let id = try row.decode(column: "client_id", as: String.self)
                apps[id]?.scopes.formUnion(OIDCClientRecord.list(try row.decode(column: "scope", as: String.self)))
            }
            for row in try await db.all(StoreQuery(SQL.oidcAppRefreshes, .text(accountId))) {
                let id = try row.decode(column: "client_id", as: String.self)
                guard let refreshed = try row.decode(column: "refreshed_at", as: Int64?.self).map(Timestamp.date) else { continue }
                guard var app = apps[id] else { continue }
                app.last = max(app.last ?? refreshed, refreshed)
                apps[id] = app
            }
            return apps.compactMap { id, app in
                guard app.listed, let first = app.first else { return nil }
                return OIDCAppAccess(
                    clientId: id, clientName: app.name, scopes: OIDCScope.supported.filter(app.scopes.contains), consentedAt: first,
                    lastUsedAt: app.last, hasLogo: !app.logoType.isEmpty)
            }.sorted { ($0.clientName.lowercased(), $0.clientId) < ($1.clientName.lowercased(), $1.clientId) }
        }
    }

    /// Ends the account's access for `clientId`: deletes the consent and revokes every grant, with the
    /// event `event(clientName)`. False when there was nothing to end (no such client, or neither a
    /// consent nor a live grant: what the list would not show), and then nothing changes.
    func revoke(accountId: String, clientId: String, at now: Date, event: @escaping @Sendable (_ clientName: String) -> AuditEvent) async throws -> Bool {
        try await connections.transaction { db in
            guard let name = try await db.first(StoreQuery(SQL.oidcClientName, .text(clientId)))?.decode(column: "name", as: String.self) else {
                return false
            }
            // Only an app the list shows can be taken back; an app whose grants all ran out has nothing to end.
            let live = try await db.first(StoreQuery(SQL.liveOIDCAppGrants, .text(accountId), .text(clientId), .milliseconds(now)))?
                .decode(column: "n", as: Int.self) ?? 0
            let consents = try await db.changedRows(StoreQuery(SQL.deleteOIDCConsent, .text(accountId), .text(clientId)))
            guard consents + live > 0 else { return false }
            try await db.run(StoreQuery(SQL.revokeOIDCAppGrants, .text(accountId), .text(clientId), .milliseconds(now)))
            try await store.queueOIDCLogout(revokingApp: clientId, accountId: accountId, at: now, on: db)
            try await audit.append([event(name)], on: db)
            return true
        }
    }
}

extension Store {
    /// The apps an account has let in (Apps with access).
    var oidcApps: OIDCAppStore { OIDCAppStore(store: self) }
}
