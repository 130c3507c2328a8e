import Foundation
import LatchkeyDatabase
import LatchkeyRuntime
import Logging
import Metrics
import ServiceLifecycle

/// Every `interval`: forgets the used challenges that have expired (an expired challenge no longer
/// opens, so its mark has nothing left to guard), removes expired sessions and the shared rate limit's
/// refilled buckets and the audit events past their retention, and empties SQLite's write-ahead log. Closes the database when the server stops
/// (after in-flight requests have finished).
///
/// Several instances on one database all wake up, but the purge is claimed in the database first
/// (`Store.claim`): one instance does it per interval, not every instance at once — purges are the
/// longest statements the server runs, and N of them racing over the same rows only contend.
struct Housekeeping: Service {
    static let purgeTask = "purge-expired"

    let store: Store
    let connections: DatabaseConnections
    let logger: Logger
    var interval: TimeInterval = 60
    /// How long the audit trail keeps an event.
    var auditRetention: TimeInterval = 90 * 86400
    /// Purges this instance ran (`latchkey_housekeeping_runs_total`).
    var runs: Counter?
    /// How this instance names itself in the claim (host and process id).
    var instance = Housekeeping.instanceName()

    func run() async throws {
        // Runs until graceful shutdown begins (or the task is cancelled), then closes the pool.
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await runOnce(now: Date())
                } catch is CancellationError {
                    break
                } catch {
                    logger.warning("housekeeping failed", metadata: ["error": "\(DatabaseFailure.summary(error))"])
                }
                // What a burst of requests since the last round left free in the heap goes back to the system.
                HeapTrim.now()
                try? await Task.sleep(for: .milliseconds(Int64(interval * 1000)))
            }
        }
        try await connections.shutdown()
    }

    /// One round; true when this instance did the purge.
    @discardableResult
    func runOnce(now: Date) async throws -> Bool {
        let claimed = try await store.claim(task: Self.purgeTask, instance: instance, interval: interval, now: now)
        if claimed {
            try await store.purgeUsedChallenges(now: now)
            try await store.purgeExpiredSessions(now: now)
            try await store.rateLimits.purge()
            try await store.purgeAuditEvents(before: now - auditRetention)
            // A device request lives 5 minutes and its restricted session 15 more.
            try await store.deviceRequests.purge(before: now - 20 * 60)
            // Email confirmation links once expired; the mail log once outside every limit's window.
            try await store.emails.purge(tokensExpiredBefore: now, loggedBefore: now - 86400)
            // OpenID Connect grants a day past their end, with their codes and refresh tokens.
            try await store.oidcGrants.purge(now: now)
            // Device authorizations (RFC 8628) once expired.
            try await store.oidcDeviceCodes.purge(now: now)
            // Used client assertions (private_key_jwt) once their exp has passed.
            try await store.oidcClients.purgeAssertions(now: now)
            // Sign-up links asked for by mail (--signup-domain) a day past their end, unused.
            try await store.invitations.purgeMailed(before: now - 86400)
            // The admin console's sessions and the first administrator's setup links once expired.
            try await store.consoleSessions.purge(now: now)
            // Back-channel logout tokens nothing delivers: with OpenID Connect off (this store queues none),
            // what an earlier run or `latchkey admin` queued would stay for ever.
            if !store.queuesOIDCLogouts { try await store.purgeOIDCLogouts() }
            runs?.increment()
            logger.debug("housekeeping purged expired rows", metadata: ["instance": "\(instance)"])
        }
        // SQLite's log is emptied by whichever process has the file open (a no-op on PostgreSQL).
        try await store.truncateLog()
        return claimed
    }

    static func instanceName() -> String {
        "\(ProcessInfo.processInfo.hostName):\(ProcessInfo.processInfo.processIdentifier)"
    }
}
