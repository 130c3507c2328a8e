import Foundation
import LatchkeyDatabase
import SQLKit

/// What the instances on one database coordinate through it: who runs the periodic housekeeping, and
/// the rate limiter's buckets.
extension Store {
    /// True when this instance should run `task` now: it is the first to ask since `interval` ago (by
    /// the instances' clocks, which only decide how often the work runs, never whether a secret is valid).
    /// Of instances that wake up together, one gets true. A little slack (a tenth of the interval) lets
    /// an instance whose timer fires a moment early still take its turn, so the work runs about once
    /// per interval in all rather than once per two.
    func claim(task: String, instance: String, interval: TimeInterval, now: Date) async throws -> Bool {
        let due = now.addingTimeInterval(-interval * 0.9)
        return try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.claimTask, .text(task), .milliseconds(now), .text(instance), .milliseconds(due))) != nil
        }
    }

    /// Which instance ran `task` last, and when (tests, and the cluster's status).
    func lastRun(of task: String) async throws -> (instance: String, at: Date)? {
        try await connections.withConnection { db in
            guard let row = try await db.first(StoreQuery(SQL.lastRun, .text(task))) else { return nil }
            return (try row.decode(column: "instance", as: String.self), Timestamp.date(try row.decode(column: "last_run", as: Int64.self)))
        }
    }

    /// One request by `client` against the shared bucket of `perMinute` requests a minute (PostgreSQL).
    func admitRequest(client: [UInt8], perMinute: Int) async throws -> RateLimiter.Decision {
        let taken = try await takeRateTokens(client: client, perMinute: perMinute, wanted: 1)
        return taken.granted > 0 ? .allowed : .limited(retryAfter: taken.retryAfter)
    }

    /// Takes up to `wanted` (at least 1) tokens from `client`'s shared bucket (PostgreSQL): how many it
    /// got, and when none, after how many whole seconds the next one will be there.
    func takeRateTokens(client: [UInt8], perMinute: Int, wanted: Int) async throws -> (granted: Int, retryAfter: Int) {
        try await connections.withConnection { db in
            guard let row = try await db.first(StoreQuery(
                SQL.takeRateTokens, .blob(client), .integer(Int64(perMinute)), .integer(Int64(max(wanted, 1)))))
            else { return (max(wanted, 1), 0) }
            let granted = Int(try row.decode(column: "granted", as: Double.self))
            let tokens = try row.decode(column: "tokens", as: Double.self)
            return (granted, max(1, Int(((1 - tokens) * 60 / Double(max(perMinute, 1))).rounded(.up))))
        }
    }

    /// Forgets the buckets that have refilled (PostgreSQL; SQLite has no shared buckets).
    func purgeRateLimits() async throws {
        guard connections.flavor == .postgres else { return }
        try await connections.withConnection { db in try await db.run(StoreQuery(SQL.purgeRateLimits)) }
    }
}
