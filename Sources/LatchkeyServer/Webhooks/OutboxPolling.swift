import AsyncHTTPClient
import Foundation
import LatchkeyDatabase
import Logging
import Metrics
import ServiceLifecycle

/// What the two outboxes' delivery services share (`WebhookDelivery`, and OpenID Connect's
/// `OIDCLogoutDelivery`, which sends its logout tokens through the webhooks' machinery): the HTTP clients
/// they post with, their delivered/failed/abandoned counters, and the loop that runs rounds until nothing
/// is due, then sleeps a poll interval — a database that cannot be read is logged and tried again, and a
/// graceful shutdown ends the loop and the clients.
enum OutboxPolling {
    /// Clients that follow no redirect (a 3xx is a failure the sender sees) and speak HTTP/1.1 only,
    /// connecting and reading within `timeout`; pinned per endpoint to the addresses its check resolved.
    static func clients(timeout: TimeInterval) -> WebhookClients {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(
            connect: .seconds(Int64(timeout)), read: .seconds(Int64(timeout))))
        configuration.httpVersion = .http1Only
        return WebhookClients(configuration: configuration)
    }

    /// Runs `round` (how many items it tried) until cancelled or shut down; `unreadable` is the warning
    /// logged when a round throws.
    static func run(
        pollInterval: TimeInterval, timeout: TimeInterval, logger: Logger, unreadable: Logger.Message,
        round: @escaping @Sendable (WebhookClients, Date) async throws -> Int
    ) async {
        let clients = clients(timeout: timeout)
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                var worked = 0
                do {
                    worked = try await round(clients, Date())
                } catch is CancellationError {
                    break
                } catch {
                    logger.warning(unreadable, metadata: ["error": "\(DatabaseFailure.summary(error))"])
                }
                if worked == 0 { try? await Task.sleep(for: .milliseconds(Int64(pollInterval * 1000))) }
            }
        }
        await clients.shutdown()
    }

    /// A delivery service's outcomes, as one counter `label` with a `result` dimension.
    struct Counters: Sendable {
        let delivered: Counter
        let failed: Counter
        let abandoned: Counter

        init(label: String, factory: any MetricsFactory) {
            delivered = Counter(label: label, dimensions: [("result", "delivered")], factory: factory)
            failed = Counter(label: label, dimensions: [("result", "failed")], factory: factory)
            abandoned = Counter(label: label, dimensions: [("result", "abandoned")], factory: factory)
        }
    }
}
