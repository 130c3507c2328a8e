import Foundation
import Logging
import ServiceLifecycle

/// Once a minute: forgets the used challenges that have expired (an expired challenge no longer opens, so
/// its mark has nothing left to guard), removes expired sessions, and empties SQLite's write-ahead log.
/// Closes the database when the server stops (after in-flight requests have finished).
struct Housekeeping: Service {
    let store: Store
    let connections: DatabaseConnections
    let logger: Logger
    var interval: Duration = .seconds(60)

    func run() async throws {
        // Runs until graceful shutdown begins (or the task is cancelled), then closes the pool.
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await store.purgeUsedChallenges(now: Date())
                    try await store.purgeExpiredSessions(now: Date())
                    try await store.truncateLog()
                } catch is CancellationError {
                    break
                } catch {
                    logger.warning("housekeeping failed", metadata: ["error": "\(error)"])
                }
                try? await Task.sleep(for: interval)
            }
        }
        try await connections.shutdown()
    }
}
