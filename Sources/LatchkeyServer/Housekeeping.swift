import Foundation
import Logging
import ServiceLifecycle

/// Once a minute: removes expired ceremonies and sessions, trims pending ceremonies to
/// `maxPendingCeremonies` (each anonymous options call stores one for its whole lifetime; without a bound
/// in number a flood of them grew the database without limit), and empties SQLite's write-ahead log.
/// Closes the database when the server stops (after in-flight requests have finished).
struct Housekeeping: Service {
    let store: Store
    let connections: DatabaseConnections
    let logger: Logger
    var maxPendingCeremonies: Int
    var interval: Duration = .seconds(60)

    func run() async throws {
        // Runs until graceful shutdown begins (or the task is cancelled), then closes the pool.
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await store.purgeExpiredCeremonies(now: Date())
                    let trimmed = try await store.trimCeremonies(keeping: maxPendingCeremonies)
                    if trimmed > 0 {
                        logger.warning("pending ceremonies over the limit: the oldest were dropped", metadata: [
                            "dropped": "\(trimmed)", "limit": "\(maxPendingCeremonies)",
                        ])
                    }
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
