import Foundation
import LatchkeyDatabase
import SQLKit

/// The OpenID Connect clients an operator registered (`AdminService` changes them, `OIDCProvider` reads
/// them). Every change writes its audit event in its transaction; removing a client removes its consents
/// and grants with it (foreign keys), so nothing it was given outlives it.
struct OIDCClientStore: Sendable {
    /// The store whose connections and audit trail it shares.
    let store: Store

    var connections: DatabaseConnections { store.connections }
    var audit: AuditTrail { store.audit }

    /// Stores a new client, with its logo when it has one (`client.logoType` is then `logo`'s); false when
    /// its id is taken.
    func insert(_ client: OIDCClientRecord, logo: OIDCClientLogo? = nil, event: AuditEvent) async throws -> Bool {
        try await connections.transaction { db in
            let inserted = try await db.first(Self.insertion(client, logo: logo))
            guard inserted != nil else { return false }
            try await audit.append([event], on: db)
            return true
        }
    }

    /// The logo of client `id`, nil when it has none (or there is no such client).
    func logo(id: String) async throws -> OIDCClientLogo? {
        try await connections.withConnection { db in
            guard let row = try await db.first(StoreQuery(SQL.oidcClientLogo, .text(id))),
                  let data = try row.decode(column: "logo", as: Data?.self)
            else { return nil }
            return OIDCClientLogo(data: data, contentType: try row.decode(column: "logo_type", as: String.self))
        }
    }

    func client(id: String) async throws -> OIDCClientRecord? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.oidcClient, .text(id))).map(OIDCClientRecord.init(row:))
        }
    }

    func all() async throws -> [OIDCClientRecord] {
        try await connections.withConnection { db in
            try await db.all(StoreQuery(SQL.oidcClients)).map(OIDCClientRecord.init(row:))
        }
    }

    /// Writes everything but the id, secret and creation (and, with `secretChanged`, the secret digest
    /// too, in the same transaction: a client made public or confidential); nil when there is no such
    /// client, else how many grants it revoked. A changed or dropped secret revokes every grant the
    /// client holds, as rotation does: a refresh token or a pending code issued to the confidential client
    /// must not be redeemed with the client id alone once it is public (review 4, S4-6). `event` is told
    /// how many (nil when the secret stayed). The caller draws the client a new `credentialsGeneration` with a
    /// changed secret (`AdminService.updateClient`), which ends its client-credentials tokens.
    /// `logo`: nil leaves the logo as it is; `.some(nil)` removes it; `.some(logo)` replaces it.
    func update(
        _ client: OIDCClientRecord, secretChanged: Bool = false, logo: OIDCClientLogo?? = nil,
        event: @escaping @Sendable (_ grantsRevoked: Int?) -> AuditEvent
    ) async throws -> Int? {
        try await connections.transaction { db in
            let updated = try await db.first(Self.change(client))
            guard updated != nil else { return nil }
            if let logo {
                try await db.run(StoreQuery(SQL.setOIDCClientLogo, .text(client.id), .blob(logo.map { Array($0.data) }), .text(logo?.contentType ?? "")))
            }
            var revoked: Int?
            if secretChanged {
                try await db.run(StoreQuery(
                    SQL.setOIDCClientSecret, .text(client.id), .blob(client.secretHash), .milliseconds(client.updatedAt),
                    .text(client.credentialsGeneration)))
                revoked = try await db.changedRows(StoreQuery(SQL.revokeOIDCClientGrants, .text(client.id), .milliseconds(client.updatedAt)))
            }
            try await audit.append([event(revoked)], on: db)
            return revoked ?? 0
        }
    }

    /// Gives a confidential client a new secret digest and revokes every live grant it holds — whoever
    /// had the old secret keeps nothing it obtained: the grants' refresh tokens are refused and their
    /// access tokens stop introspecting and reaching UserInfo — in one transaction with
    /// `event(grantsRevoked)`. Nil when there is no such client, else how many grants it revoked.
    func rotateSecret(
        id: String, secretHash: [UInt8], at: Date, event: @escaping @Sendable (_ grantsRevoked: Int) -> AuditEvent
    ) async throws -> Int? {
        try await connections.transaction { db in
            let generation = OIDCClientRules.generation()
            guard try await db.first(StoreQuery(
                SQL.setOIDCClientSecret, .text(id), .blob(secretHash), .milliseconds(at), .text(generation))) != nil
            else {
                return nil
            }
            let revoked = try await db.changedRows(StoreQuery(SQL.revokeOIDCClientGrants, .text(id), .milliseconds(at)))
            try await audit.append([event(revoked)], on: db)
            return revoked
        }
    }

    /// Ends every client-credentials token of `client` (RFC 7009 revocation of one of them: they hold no
    /// row each) by drawing a new generation, with `event`; false when the generation had changed already.
    @discardableResult
    func revokeCredentials(_ client: OIDCClientRecord, event: AuditEvent) async throws -> Bool {
        try await connections.transaction { db in
            guard try await db.first(StoreQuery(
                SQL.setOIDCClientGeneration, .text(client.id), .text(OIDCClientRules.generation()), .text(client.credentialsGeneration))) != nil
            else { return false }
            try await audit.append([event], on: db)
            return true
        }
    }

    /// Notes that client `clientId` used the assertion whose `jti` hashes to `jtiHash`, until `expiresAt`:
    /// false when it was used before (a replay), or the client holds `liveLimit` unexpired ones.
    func useAssertion(clientId: String, jtiHash: [UInt8], expiresAt: Date, at now: Date, liveLimit: Int) async throws -> Bool {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(
                SQL.insertOIDCClientAssertion, .text(clientId), .blob(jtiHash), .milliseconds(expiresAt), .milliseconds(now),
                .integer(Int64(liveLimit)))) != nil
        }
    }

    @discardableResult
    func purgeAssertions(now: Date) async throws -> Int {
        try await connections.withConnection { db in
            try await db.changedRows(StoreQuery(SQL.purgeOIDCClientAssertions, .milliseconds(now)))
        }
    }

    /// Records the client-credentials token just issued to a client (no account: the client is the
    /// subject).
    func recordCredentialsIssued(event: AuditEvent) async throws {
        try await connections.transaction { db in try await audit.append([event], on: db) }
    }

    /// Removes a client with its consents, grants, codes and refresh tokens; false when there was none.
    func delete(id: String, event: AuditEvent) async throws -> Bool {
        try await connections.transaction { db in
            guard try await db.first(StoreQuery(SQL.deleteOIDCClient, .text(id))) != nil else { return false }
            try await audit.append([event], on: db)
            return true
        }
    }

    /// The statement that stores `client` as a new row.
    static func insertion(_ client: OIDCClientRecord, logo: OIDCClientLogo? = nil) -> StoreQuery {
        StoreQuery(
            SQL.insertOIDCClient, .text(client.id), .text(client.name), .blob(client.secretHash),
            .text(OIDCClientRecord.stored(client.redirectURIs)), .text(OIDCClientRecord.stored(client.postLogoutURIs)),
            .text(client.idTokenAlgorithm), .integer(client.firstParty), .text(OIDCClientRecord.stored(client.scopes)),
            .text(OIDCClientRecord.stored(client.allowedGroups)), .milliseconds(client.createdAt), .milliseconds(client.updatedAt),
            .text(client.createdBy), .text(OIDCClientRecord.stored(client.grantTypes)), .text(OIDCClientRecord.stored(client.apiScopes)),
            .text(client.credentialsGeneration), .text(client.jwks), .text(client.backchannelLogoutURI ?? ""),
            .text(client.groupsClaim), .text(client.managedBy ?? ""), .text(client.jwksURI ?? ""),
            .text(logo?.contentType ?? ""), .blob(logo.map { Array($0.data) }))
    }

    /// The statement that writes everything of `client` but its id, secret and creation.
    static func change(_ client: OIDCClientRecord) -> StoreQuery {
        StoreQuery(
            SQL.updateOIDCClient, .text(client.id), .text(client.name), .text(OIDCClientRecord.stored(client.redirectURIs)),
            .text(OIDCClientRecord.stored(client.postLogoutURIs)), .text(client.idTokenAlgorithm), .integer(client.firstParty),
            .text(OIDCClientRecord.stored(client.scopes)), .text(OIDCClientRecord.stored(client.allowedGroups)),
            .milliseconds(client.updatedAt), .text(OIDCClientRecord.stored(client.grantTypes)),
            .text(OIDCClientRecord.stored(client.apiScopes)), .text(client.credentialsGeneration), .text(client.jwks),
            .text(client.backchannelLogoutURI ?? ""), .text(client.groupsClaim), .text(client.managedBy ?? ""), .text(client.jwksURI ?? ""))
    }
}

extension Store {
    /// The relying parties: registered, changed, their secrets rotated, their assertions' ids spent.
    var oidcClients: OIDCClientStore { OIDCClientStore(store: self) }
}
