import Foundation
import LatchkeyDatabase
import SQLKit

/// The device authorizations (`OIDCDeviceRecord`, RFC 8628): issued behind a per-requester and a global
/// bound, decided once by a signed-in person, polled by the client, and used once. Each step and its audit
/// events commit together.
struct OIDCDeviceStore: Sendable {
    /// The store whose connections and audit trail it shares.
    let store: Store

    var connections: DatabaseConnections { store.connections }
    var audit: AuditTrail { store.audit }

    /// Stores `record` unless `liveLimit` authorizations are live, `perRequester` of them its requester's,
    /// or a live one has its user code; false then.
    func insert(_ record: OIDCDeviceRecord, perRequester: Int, liveLimit: Int) async throws -> Bool {
        try await connections.transaction { db in
            try await db.run(StoreQuery(SQL.deleteExpiredOIDCDeviceCode, .blob(record.userHash), .milliseconds(record.createdAt)))
            return try await db.first(StoreQuery(
                SQL.insertOIDCDeviceCode, .blob(record.deviceHash), .blob(record.userHash), .text(record.clientId),
                .text(OIDCClientRecord.stored(record.scopes)), .text(record.requester), .milliseconds(record.createdAt),
                .milliseconds(record.expiresAt), .integer(Int64(record.interval)), .integer(Int64(liveLimit)),
                .integer(Int64(perRequester)))) != nil
        }
    }

    func code(userHash: [UInt8]) async throws -> OIDCDeviceRecord? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.oidcDeviceCodeByUser, .blob(userHash))).map(OIDCDeviceRecord.init(row:))
        }
    }

    /// The person's decision on the verification page, once, while the authorization is live: with
    /// `grant` (approved) the grant is stored with it, and `consent` when the person just allowed the app;
    /// without, it is denied. False when it was decided before, or expired.
    func decide(
        userHash: [UInt8], accountId: String, grant: OIDCGrantRecord?, consent: [String]?, at now: Date, events: [AuditEvent]
    ) async throws -> Bool {
        try await connections.transaction { db in
            if let grant {
                try await db.run(StoreQuery(
                    SQL.insertOIDCGrant, .text(grant.id), .text(grant.clientId), .text(grant.accountId), .blob(grant.sessionHash),
                    .text(OIDCClientRecord.stored(grant.scopes)), .text(grant.nonce), .milliseconds(grant.authTime),
                    .text(OIDCClientRecord.stored(grant.amr)), .milliseconds(grant.createdAt), .milliseconds(grant.expiresAt)))
            }
            guard try await db.first(StoreQuery(
                SQL.decideOIDCDeviceCode, .blob(userHash), .text(accountId), .text(grant?.id), .milliseconds(now), .integer(grant != nil))) != nil
            else {
                if let grant { try await db.run(StoreQuery(SQL.deleteOIDCGrant, .text(grant.id))) }
                return false
            }
            if let grant, let consent {
                try await db.run(StoreQuery(
                    SQL.upsertOIDCConsent, .text(grant.accountId), .text(grant.clientId), .text(OIDCClientRecord.stored(consent)),
                    .milliseconds(now)))
            }
            try await audit.append(events, on: db)
            return true
        }
    }

    /// What a poll of the token endpoint came to (RFC 8628 §3.5).
    enum DevicePoll: Sendable, Equatable {
        /// Unknown, used, or issued to another client.
        case unknown
        case expired
        /// Polled sooner than the interval: it is now `interval` seconds.
        case slowDown(interval: Int)
        case pending
        /// The person said no; the authorization is gone.
        case denied
        /// Approved: the authorization is used (deleted) and its grant lives until `expiry(grant)`.
        case issued(OIDCGrantRecord)
    }

    /// A poll by `clientId` at `now` of the authorization with device code hash `deviceHash`. A refused
    /// poll (another client's, unknown) changes nothing; a poll sooner than the interval widens it by 5
    /// seconds. An approved authorization is used once: the grant's first refresh token (`refreshHash`,
    /// with `offline_access`) is stored and `events(grant)` written in the same transaction.
    func poll(
        deviceHash: [UInt8], clientId: String, at now: Date, refreshHash: [UInt8], expiry: @escaping @Sendable (OIDCGrantRecord) -> Date,
        events: @escaping @Sendable (OIDCGrantRecord) -> [AuditEvent]
    ) async throws -> DevicePoll {
        try await connections.transaction { db in
            guard let row = try await db.first(StoreQuery(SQL.oidcDeviceCodeByDevice, .blob(deviceHash))) else { return .unknown }
            let record = try OIDCDeviceRecord(row: row)
            guard record.clientId == clientId else { return .unknown }
            guard record.expiresAt > now else { return .expired }
            if let polled = record.polledAt, now < polled.addingTimeInterval(TimeInterval(record.interval)) {
                let widened = min(record.interval + 5, 60)
                try await db.run(StoreQuery(SQL.pollOIDCDeviceCode, .blob(deviceHash), .milliseconds(now), .integer(Int64(widened))))
                return .slowDown(interval: widened)
            }
            try await db.run(StoreQuery(SQL.pollOIDCDeviceCode, .blob(deviceHash), .milliseconds(now), .integer(Int64(record.interval))))
            guard record.decidedAt != nil else { return .pending }
            guard record.approved == true, let grantId = record.grantId else {
                try await db.run(StoreQuery(SQL.deleteOIDCDeviceCode, .blob(deviceHash)))
                return .denied
            }
            // Of two polls at once, one deletes it and gets the tokens.
            guard try await db.first(StoreQuery(SQL.deleteOIDCDeviceCode, .blob(deviceHash))) != nil,
                  let grantRow = try await db.first(StoreQuery(SQL.oidcGrantWithAccount, .text(grantId)))
            else { return .unknown }
            var grant = try OIDCGrantRecord(row: grantRow)
            guard grant.revokedAt == nil, try grantRow.decode(column: "disabled_at", as: Int64?.self) == nil else { return .denied }
            grant.expiresAt = expiry(grant)
            try await db.run(StoreQuery(SQL.extendOIDCGrant, .text(grant.id), .milliseconds(grant.expiresAt)))
            if grant.isOffline {
                try await db.run(StoreQuery(SQL.insertOIDCRefreshToken, .blob(refreshHash), .text(grant.id), .milliseconds(now)))
            }
            try await audit.append(events(grant), on: db)
            return .issued(grant)
        }
    }

    /// Deletes expired device authorizations (a grant approved for one that no poll fetched ended with it,
    /// and `purgeOIDCGrants` takes it a day later).
    @discardableResult
    func purge(now: Date) async throws -> Int {
        try await connections.withConnection { db in
            try await db.changedRows(StoreQuery(SQL.purgeOIDCDeviceCodes, .milliseconds(now)))
        }
    }
}

extension Store {
    /// RFC 8628's device codes: made, decided on the verification page, polled.
    var oidcDeviceCodes: OIDCDeviceStore { OIDCDeviceStore(store: self) }
}
