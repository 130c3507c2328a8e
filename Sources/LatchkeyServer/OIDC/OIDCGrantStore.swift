import Foundation
import LatchkeyDatabase
import SQLKit

/// The OpenID Connect grants (`OIDCGrantRecord`): an authorization code issued with its grant, its one
/// exchange, the refresh tokens' rotation, and revocation. Each step and its audit event commit together;
/// a replayed code or refresh token revokes its whole grant in the transaction that notices it.
struct OIDCGrantStore: Sendable {
    /// The store whose connections and audit trail it shares.
    let store: Store

    var connections: DatabaseConnections { store.connections }
    var audit: AuditTrail { store.audit }

    /// What a code's exchange came to.
    enum CodeRedemption: Sendable, Equatable {
        case redeemed(OIDCGrantRecord)
        /// Unknown, expired, bound to another client, redirect URI or verifier, or its grant is over.
        case refused
        /// Used before: its grant (and everything issued from it) is now revoked.
        case reused
    }

    /// What a refresh token's use came to.
    enum RefreshRotation: Sendable, Equatable {
        case rotated(OIDCGrantRecord)
        case refused
        /// A live, unused token whose grant does not cover the scope asked for: nothing changed, the token
        /// still good (review 4, S4-7: rotating first burned it, and the client's next refresh was taken
        /// for theft).
        case scopeRefused
        /// Rotated before: the grant is now revoked (RFC 9700 §4.14.2).
        case reused
    }

    /// Live grants one account holds for one client: one per browser or device that signed in to the
    /// app, and more than any person has. A new one beyond it revokes the oldest (review 4, S4-4: every
    /// authorization added a grant, without bound).
    static let liveGrantsPerClient = 50

    /// Stores a grant and its code (and, when the person just allowed it, their consent), in one
    /// transaction with their events. The same session's grants for the client whose code was never
    /// exchanged are replaced (deleted, with their codes), and the client's oldest live grant revoked when
    /// the account holds `liveGrantsPerClient`: what one account stores per client is bounded.
    func issueCode(
        grant: OIDCGrantRecord, code: OIDCCodeRecord, consent: [String]?, events: [AuditEvent]
    ) async throws {
        try await connections.transaction { db in
            if let session = grant.sessionHash {
                try await db.run(StoreQuery(SQL.deletePendingOIDCGrants, .text(grant.accountId), .text(grant.clientId), .blob(session)))
            }
            try await db.run(StoreQuery(
                SQL.revokeOldestOIDCGrant, .text(grant.accountId), .text(grant.clientId), .integer(Int64(Self.liveGrantsPerClient)),
                .milliseconds(grant.createdAt)))
            if let consent {
                try await db.run(StoreQuery(
                    SQL.upsertOIDCConsent, .text(grant.accountId), .text(grant.clientId), .text(OIDCClientRecord.stored(consent)),
                    .milliseconds(grant.createdAt)))
            }
            try await db.run(StoreQuery(
                SQL.insertOIDCGrant, .text(grant.id), .text(grant.clientId), .text(grant.accountId), .blob(grant.sessionHash),
                .text(OIDCClientRecord.stored(grant.scopes)), .text(grant.nonce), .milliseconds(grant.authTime),
                .text(OIDCClientRecord.stored(grant.amr)), .milliseconds(grant.createdAt), .milliseconds(grant.expiresAt)))
            try await db.run(StoreQuery(
                SQL.insertOIDCCode, .blob(code.codeHash), .text(code.grantId), .text(code.redirectURI), .text(code.codeChallenge),
                .milliseconds(code.expiresAt)))
            try await audit.append(events, on: db)
        }
    }

    /// The scopes the person already allowed `clientId`, or nil.
    func consent(accountId: String, clientId: String) async throws -> [String]? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.oidcConsent, .text(accountId), .text(clientId)))
                .map { OIDCClientRecord.list(try $0.decode(column: "scopes", as: String.self)) }
        }
    }

    /// The exchange of a code (hash `codeHash`) at `now`: `accepts` checks what the code is bound to
    /// (client, redirect URI, PKCE verifier); a refused check leaves the code usable by its rightful
    /// client. On success the code is used, the grant lives until `expiry(grant)`, and — when the grant has
    /// `offline_access` — `refreshHash` is stored as its first refresh token. A code used before revokes
    /// the grant.
    func redeemCode(
        codeHash: [UInt8], at now: Date, accepts: @escaping @Sendable (OIDCCodeRecord, OIDCGrantRecord) -> Bool,
        refreshHash: [UInt8], expiry: @escaping @Sendable (OIDCGrantRecord) -> Date,
        events: @escaping @Sendable (OIDCGrantRecord, _ reused: Bool) -> [AuditEvent]
    ) async throws -> CodeRedemption {
        try await connections.transaction { db in
            guard let row = try await db.first(StoreQuery(SQL.oidcCodeWithGrant, .blob(codeHash))) else { return .refused }
            var grant = try OIDCGrantRecord(row: row)
            let code = OIDCCodeRecord(
                codeHash: codeHash, grantId: grant.id, redirectURI: try row.decode(column: "redirect_uri", as: String.self),
                codeChallenge: try row.decode(column: "code_challenge", as: String?.self),
                expiresAt: Timestamp.date(try row.decode(column: "code_expires_at", as: Int64.self)),
                usedAt: try row.decode(column: "used_at", as: Int64?.self).map(Timestamp.date))
            if code.usedAt != nil {
                try await revoke(grant, at: now, events: events(grant, true), on: db)
                return .reused
            }
            guard code.expiresAt > now, grant.revokedAt == nil, try row.decode(column: "disabled_at", as: Int64?.self) == nil,
                  accepts(code, grant)
            else { return .refused }
            guard try await db.first(StoreQuery(SQL.useOIDCCode, .blob(codeHash), .milliseconds(now))) != nil else {
                // Another exchange of the same code won the race a moment ago: a replay all the same.
                try await revoke(grant, at: now, events: events(grant, true), on: db)
                return .reused
            }
            grant.expiresAt = expiry(grant)
            try await db.run(StoreQuery(SQL.extendOIDCGrant, .text(grant.id), .milliseconds(grant.expiresAt)))
            if grant.isOffline {
                try await db.run(StoreQuery(SQL.insertOIDCRefreshToken, .blob(refreshHash), .text(grant.id), .milliseconds(now)))
            }
            try await audit.append(events(grant, false), on: db)
            return .redeemed(grant)
        }
    }

    /// A refresh token's use by `clientId` at `now`: marks it used, stores `newHash` in its place and
    /// keeps the grant alive until `expiresAt`. A token used before revokes the grant. `asking` (the
    /// request's `scope`, if any) is checked against the grant before anything is written: a wider one
    /// is `.scopeRefused` and changes nothing.
    func rotateRefreshToken(
        hash: [UInt8], newHash: [UInt8], clientId: String, asking: Set<String>? = nil, at now: Date, expiresAt: Date,
        events: @escaping @Sendable (OIDCGrantRecord, _ reused: Bool) -> [AuditEvent]
    ) async throws -> RefreshRotation {
        try await connections.transaction { db in
            guard let row = try await db.first(StoreQuery(SQL.oidcRefreshWithGrant, .blob(hash))) else { return .refused }
            var grant = try OIDCGrantRecord(row: row)
            // Another client's token says nothing about this client's: refused, and its grant left alone.
            guard grant.clientId == clientId else { return .refused }
            if try row.decode(column: "used_at", as: Int64?.self) != nil {
                if grant.revokedAt == nil { try await revoke(grant, at: now, events: events(grant, true), on: db) }
                return .reused
            }
            guard grant.isLive(at: now), try row.decode(column: "disabled_at", as: Int64?.self) == nil else { return .refused }
            if let asking, !asking.isSubset(of: Set(grant.scopes)) { return .scopeRefused }
            guard try await db.first(StoreQuery(SQL.useOIDCRefreshToken, .blob(hash), .milliseconds(now))) != nil else {
                try await revoke(grant, at: now, events: events(grant, true), on: db)
                return .reused
            }
            try await db.run(StoreQuery(SQL.insertOIDCRefreshToken, .blob(newHash), .text(grant.id), .milliseconds(now)))
            grant.expiresAt = expiresAt
            try await db.run(StoreQuery(SQL.extendOIDCGrant, .text(grant.id), .milliseconds(expiresAt)))
            try await audit.append(events(grant, false), on: db)
            return .rotated(grant)
        }
    }

    /// The grant `id` while it is live and its account enabled (access tokens and UserInfo ask).
    func live(id: String, at now: Date) async throws -> OIDCGrantRecord? {
        try await connections.withConnection { db in
            guard let row = try await db.first(StoreQuery(SQL.oidcGrantWithAccount, .text(id))),
                  try row.decode(column: "disabled_at", as: Int64?.self) == nil
            else { return nil }
            let grant = try OIDCGrantRecord(row: row)
            return grant.isLive(at: now) ? grant : nil
        }
    }

    /// The grant a refresh token belongs to, used or not (RFC 7009 revokes by either).
    func grant(refreshHash: [UInt8]) async throws -> OIDCGrantRecord? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.oidcRefreshWithGrant, .blob(refreshHash))).map(OIDCGrantRecord.init(row:))
        }
    }

    /// Revokes a grant with `events`; false when it was revoked already.
    @discardableResult
    func revoke(_ grant: OIDCGrantRecord, at now: Date, events: [AuditEvent]) async throws -> Bool {
        try await connections.transaction { db in try await revoke(grant, at: now, events: events, on: db) }
    }

    /// RP-initiated logout: ends the session `sessionHash` and the grants made from it that last only as
    /// long as it does, with `events`; the apps it signed the person in to get back-channel logout tokens.
    func endSessionForLogout(sessionHash: [UInt8], at now: Date, events: [AuditEvent]) async throws {
        try await connections.transaction { db in
            try await store.queueOIDCLogouts(endingSession: sessionHash, at: now, on: db)
            _ = try await db.changedRows(StoreQuery(SQL.revokeSessionOIDCGrants, .blob(sessionHash), .milliseconds(now)))
            try await db.run(StoreQuery(SQL.deleteSession, .blob(sessionHash)))
            try await audit.append(events, on: db)
        }
    }

    /// Deletes grants that ended or were revoked more than a day before `now` (their codes and refresh
    /// tokens go with them).
    @discardableResult
    func purge(now: Date) async throws -> Int {
        try await connections.withConnection { db in
            try await db.changedRows(StoreQuery(SQL.purgeOIDCGrants, .milliseconds(now.addingTimeInterval(-86400))))
        }
    }

    @discardableResult
    private func revoke(_ grant: OIDCGrantRecord, at now: Date, events: [AuditEvent], on db: any SQLDatabase) async throws -> Bool {
        guard try await db.first(StoreQuery(SQL.revokeOIDCGrant, .text(grant.id), .milliseconds(now))) != nil else { return false }
        try await audit.append(events, on: db)
        return true
    }
}

extension Store {
    /// Consents, authorization codes and refresh-token families.
    var oidcGrants: OIDCGrantStore { OIDCGrantStore(store: self) }
}
