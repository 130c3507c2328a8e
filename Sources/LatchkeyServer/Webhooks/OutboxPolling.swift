import AsyncHTTPClient
import Foundation
import LatchkeyDatabase
import Logging
import Metrics
import NIOCore
import NIOPosix
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
                if worked == 0 { try? await Task.sleep(for: .seconds(min(max(pollInterval, 0.01), 3600))) }
            }
        }
        await clients.shutdown()
    }

    /// The endpoint's addresses, looked up once and checked, off the cooperative threads (a lookup blocks).
    static func resolve(
        _ endpoint: WebhookEndpoint, allowPrivate: Bool, lookUp: @escaping @Sendable (String, Int) -> [SocketAddress]
    ) async -> WebhookAddressPolicy.Resolution {
        do {
            return try await NIOThreadPool.singleton.runIfActive {
                WebhookAddressPolicy.resolve(endpoint, allowPrivate: allowPrivate, lookUp: lookUp)
            }
        } catch {
            return .refused("the address of \(endpoint.url.host ?? "?") could not be checked")
        }
    }

    /// Sends `request` and reads at most 64 KiB of the answer; nil when the receiver took it (2xx), else
    /// what went wrong, in words for the outbox's `last_error`.
    static func send(_ request: HTTPClientRequest, with client: HTTPClient, timeout: TimeInterval) async -> String? {
        do {
            let response = try await client.execute(request, timeout: .seconds(Int64(min(max(timeout, 1), 3600))))
            _ = try? await response.body.collect(upTo: 64 * 1024)
            return (200..<300).contains(response.status.code) ? nil : "HTTP \(response.status.code)"
        } catch {
            return "\(type(of: error))"
        }
    }

    /// The wait before attempt `attempt + 1`: `base` doubled per failed attempt, at most an hour.
    static func retryDelay(base: TimeInterval, attempt: Int) -> TimeInterval {
        min(base * pow(2, Double(min(max(attempt - 1, 0), 30))), 3600)
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
