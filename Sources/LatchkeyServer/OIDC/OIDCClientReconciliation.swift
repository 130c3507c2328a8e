import Foundation
import LatchkeyDatabase
import LatchkeyRuntime
import Logging
import SQLKit

/// What `latchkey serve` does at start with the clients the configuration file declares
/// (`[[oidc-client]]`, `ServerConfiguration.declaredOIDCClients`): each is made when missing, changed
/// when it differs (a changed secret or keys revoke the client's grants, as a rotation does), and marked
/// managed by the file; a client an operator made by hand with the same id is adopted (so `latchkey admin
/// clients export` pasted into the file takes the clients over as they are). A managed client the file no
/// longer declares is removed, with its consents and grants — not merely disabled: the file is the
/// truth, and a disabled client would keep its secret's digest and grants in the database with nothing
/// left to manage them. Nothing happens without a file (`declaredOIDCClientsFile` nil), so an instance
/// started by hand without it removes nothing.
///
/// One transaction, under an advisory lock on PostgreSQL (SQLite's `BEGIN IMMEDIATE` serializes it):
/// instances that start together with the same file apply it once; the later ones find nothing to do.
/// Each change is audited with the actor `configuration`.
enum OIDCClientReconciliation {
    /// What a reconciliation changed, by client id.
    struct Outcome: Sendable, Equatable {
        var created: [String] = []
        var updated: [String] = []
        var removed: [String] = []

        var isEmpty: Bool { created.isEmpty && updated.isEmpty && removed.isEmpty }
    }

    /// The PostgreSQL advisory lock the reconciliation holds for its transaction ("LkOC").
    static let lockKey: Int64 = 0x4c6b_4f43

    /// Applies `configuration`'s declared clients to `store` (nothing without a file or without `--oidc`).
    @discardableResult
    static func apply(_ configuration: ServerConfiguration, store: Store, now: Date, logger: Logger) async throws -> Outcome {
        guard configuration.oidc, let file = configuration.declaredOIDCClientsFile else { return Outcome() }
        var declared: [OIDCClientRecord] = []
        for (index, client) in configuration.declaredOIDCClients.enumerated() {
            let record = try client.record(managedBy: file, at: now, entry: index + 1)
            do {
                try await OIDCClientKeysCheck.loadable(record.jwks)
            } catch {
                throw InvalidSetting(description: "the OpenID Connect client \(client.id) ([[oidc-client]] number \(index + 1) in \(file)) has keys (jwks) that are not public keys JWTKit can verify signatures with")
            }
            declared.append(record)
        }
        let outcome = try await store.oidcClients.reconcile(declared, managedBy: file, at: now)
        if !outcome.isEmpty {
            logger.info("OpenID Connect clients from the configuration", metadata: [
                "file": "\(file)", "created": "\(outcome.created.joined(separator: ","))",
                "updated": "\(outcome.updated.joined(separator: ","))", "removed": "\(outcome.removed.joined(separator: ","))",
            ])
        }
        return outcome
    }

    /// The fields of `client` an operator declares, for comparing: the bookkeeping (creation, update,
    /// who made it, the credentials generation, the managing file) left out.
    static func settings(of client: OIDCClientRecord) -> OIDCClientRecord {
        var settings = client
        settings.createdAt = .distantPast
        settings.updatedAt = .distantPast
        settings.createdBy = ""
        settings.credentialsGeneration = ""
        settings.managedBy = nil
        return settings
    }

    /// The names of the fields in which `a` and `b` differ, for the audit trail's `fields`.
    static func changedFields(_ a: OIDCClientRecord, _ b: OIDCClientRecord) -> [String] {
        var fields: [String] = []
        if a.name != b.name { fields.append("name") }
        if a.secretHash != b.secretHash { fields.append("secret") }
        if a.redirectURIs != b.redirectURIs { fields.append("redirectUris") }
        if a.postLogoutURIs != b.postLogoutURIs { fields.append("postLogoutUris") }
        if a.idTokenAlgorithm != b.idTokenAlgorithm { fields.append("idTokenAlg") }
        if a.firstParty != b.firstParty { fields.append("firstParty") }
        if a.scopes != b.scopes { fields.append("scopes") }
        if a.allowedGroups != b.allowedGroups { fields.append("allowedGroups") }
        if a.grantTypes != b.grantTypes { fields.append("grantTypes") }
        if a.apiScopes != b.apiScopes { fields.append("apiScopes") }
        if a.jwks != b.jwks { fields.append("jwks") }
        if a.jwksURI != b.jwksURI { fields.append("jwksUri") }
        if a.backchannelLogoutURI != b.backchannelLogoutURI { fields.append("backchannelLogoutUri") }
        if a.groupsClaim != b.groupsClaim { fields.append("groupsClaim") }
        if a.managedBy == nil, b.managedBy != nil { fields.append("managedBy") }
        return fields
    }
}

extension OIDCClientStore {
    /// Makes the stored clients agree with `declared` (each already judged by the rules, `managedBy`
    /// set): see `OIDCClientReconciliation`. One transaction; the audit events in it.
    func reconcile(_ declared: [OIDCClientRecord], managedBy file: String, at now: Date) async throws -> OIDCClientReconciliation.Outcome {
        let flavor = connections.flavor
        let origin = AuditOrigin(actor: OIDCDeclaredClient.actor)
        return try await connections.transaction { db in
            if flavor == .postgres {
                try await db.raw("SELECT pg_advisory_xact_lock(\(bind: OIDCClientReconciliation.lockKey)) AS locked").run()
            }
            let existing = try await db.all(StoreQuery(SQL.oidcClients)).map(OIDCClientRecord.init(row:))
            let byId = Dictionary(existing.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            var outcome = OIDCClientReconciliation.Outcome()
            var events: [AuditEvent] = []
            for wanted in declared {
                guard let current = byId[wanted.id] else {
                    guard try await db.first(OIDCClientStore.insertion(wanted)) != nil else { continue }
                    outcome.created.append(wanted.id)
                    events.append(origin.event(.oidcClientCreated, at: now, account: nil, detail: [
                        "client": .text(wanted.id), "clientName": .text(wanted.name), "public": .flag(wanted.isPublic),
                    ]))
                    continue
                }
                var next = wanted
                next.createdAt = current.createdAt
                next.createdBy = current.createdBy
                next.credentialsGeneration = current.credentialsGeneration
                // An instance that reads the same file under another path does not take it over again.
                next.managedBy = current.managedBy ?? file
                let fields = OIDCClientReconciliation.changedFields(current, next)
                guard !fields.isEmpty else { continue }
                let secretChanged = current.secretHash != next.secretHash || current.jwks != next.jwks || current.jwksURI != next.jwksURI
                if secretChanged { next.credentialsGeneration = OIDCClientRules.generation() }
                guard try await db.first(OIDCClientStore.change(next)) != nil else { continue }
                var detail: AuditDetail = ["client": .text(next.id), "clientName": .text(next.name), "fields": .text(fields.joined(separator: ","))]
                if secretChanged {
                    // A new secret or new keys end what the old ones obtained, as a rotation does.
                    try await db.run(StoreQuery(
                        SQL.setOIDCClientSecret, .text(next.id), .blob(next.secretHash), .milliseconds(now), .text(next.credentialsGeneration)))
                    let revoked = try await db.changedRows(StoreQuery(SQL.revokeOIDCClientGrants, .text(next.id), .milliseconds(now)))
                    detail.members.append(("grantsRevoked", .number(revoked)))
                }
                outcome.updated.append(next.id)
                events.append(origin.event(.oidcClientUpdated, at: now, account: nil, detail: detail))
            }
            let declaredIds = Set(declared.map(\.id))
            for current in existing where current.managedBy != nil && !declaredIds.contains(current.id) {
                guard try await db.first(StoreQuery(SQL.deleteOIDCClient, .text(current.id))) != nil else { continue }
                outcome.removed.append(current.id)
                events.append(origin.event(.oidcClientRemoved, at: now, account: nil, detail: [
                    "client": .text(current.id), "clientName": .text(current.name),
                ]))
            }
            if !events.isEmpty { try await audit.append(events, on: db) }
            return outcome
        }
    }
}
