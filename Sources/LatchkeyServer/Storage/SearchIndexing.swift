import Foundation
import LatchkeyDatabase
import Logging
import ServiceLifecycle

/// On SQLite, every `interval`: indexes the accounts and passkeys written since the last round for the
/// admin account search (`AccountSearchIndex`, `Store.indexPendingNames`), many rows per commit instead
/// of an FTS5 segment in every registration's. Rounds follow each other at once while a batch comes back
/// full (a bulk import, a burst of sign-ups), so the pending rows the search reads one by one stay few.
/// `Latchkey.services` runs it on SQLite only (PostgreSQL's GIN indexes need no such help), beside
/// `Housekeeping`, and it stops before it (it is listed after it: a service group stops its
/// services in reverse order), so the connections are still open for its last round.
struct SearchIndexing: Service {
    let store: Store
    let logger: Logger
    var interval: TimeInterval = 1

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    try await store.indexAllPendingNames()
                } catch is CancellationError {
                    break
                } catch {
                    logger.warning("search indexing failed", metadata: ["error": "\(DatabaseFailure.summary(error))"])
                }
                try? await Task.sleep(for: .milliseconds(Int64(interval * 1000)))
            }
        }
    }
}
