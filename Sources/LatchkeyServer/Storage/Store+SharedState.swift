import Foundation
import LatchkeyDatabase
import SQLKit

/// What the instances on one database coordinate through it: who runs the periodic housekeeping (the rate
/// limiter's shared buckets are `RateLimits/RateLimitStore.swift`).
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
}
