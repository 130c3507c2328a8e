import Foundation
import LatchkeyDatabase
import SQLKit

/// The rate limiter's buckets shared by every instance on one PostgreSQL (`--rate-limit-scope database`):
/// `SharedRateLimit` takes from them; the housekeeping forgets full ones.
struct RateLimitStore: Sendable {
    /// The store whose connections and audit trail it shares.
    let store: Store

    var connections: DatabaseConnections { store.connections }
    var audit: AuditTrail { store.audit }

    /// One request by `client` against the shared bucket of `perMinute` requests a minute (PostgreSQL).
    func admit(client: [UInt8], perMinute: Int) async throws -> RateLimiter.Decision {
        let taken = try await take(client: client, perMinute: perMinute, wanted: 1)
        return taken.granted > 0 ? .allowed : .limited(retryAfter: taken.retryAfter)
    }

    /// Takes up to `wanted` (at least 1) tokens from `client`'s shared bucket (PostgreSQL): how many it
    /// got, and when none, after how many whole seconds the next one will be there.
    func take(client: [UInt8], perMinute: Int, wanted: Int) async throws -> (granted: Int, retryAfter: Int) {
        try await connections.withConnection { db in
            guard let row = try await db.first(StoreQuery(
                SQL.takeRateTokens, .blob(client), .integer(Int64(perMinute)), .integer(Int64(max(wanted, 1)))))
            else { return (max(wanted, 1), 0) }
            // The statement keeps both within [0, perMinute]; read without a trap all the same (a NaN or an
            // infinity would stop the process): a granted count out of range is none, a wait at most a minute.
            let granted = Int(exactly: try row.decode(column: "granted", as: Double.self).rounded(.down)) ?? 0
            let tokens = try row.decode(column: "tokens", as: Double.self)
            let wait = ((1 - tokens) * 60 / Double(max(perMinute, 1))).rounded(.up)
            return (max(0, granted), wait.isFinite ? max(1, Int(min(wait, 60))) : 60)
        }
    }

    /// Forgets the buckets that have refilled (PostgreSQL; SQLite has no shared buckets).
    func purge() async throws {
        guard connections.flavor == .postgres else { return }
        try await connections.withConnection { db in try await db.run(StoreQuery(SQL.purgeRateLimits)) }
    }
}

extension Store {
    /// The rate limiter's buckets shared by every instance on one database.
    var rateLimits: RateLimitStore { RateLimitStore(store: self) }
}
