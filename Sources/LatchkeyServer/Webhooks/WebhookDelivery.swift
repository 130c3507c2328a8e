import AsyncHTTPClient
import Foundation
import LatchkeyDatabase
import Logging
import Metrics
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Delivers the audit trail's events to the webhook endpoints, in the background: requests never wait
/// for it. The events were queued in the outbox by the transactions that made them (`AuditTrail`); this
/// service claims due deliveries under a lease (on PostgreSQL skipping rows another instance holds, so
/// each delivery is made by one instance of a cluster), POSTs each event as JSON signed with
/// HMAC-SHA256 (`WebhookSignature`), and deletes it when the endpoint answers 2xx. A failure is retried
/// after `retryDelay`, doubling each time (at most an hour apart); after `maxAttempts` the delivery is
/// given up and logged. A delivery whose instance dies mid-way is made again when its lease ends: a
/// receiver sees each event at least once, and tells repeats by `Latchkey-Event-Id`.
///
/// Each delivery looks the endpoint's name up once, checks every address (`WebhookAddressPolicy`), and
/// connects to one of those addresses (`WebhookClients`), so the address checked is the address reached.
struct WebhookDelivery: Service {
    struct Settings: Sendable {
        var endpoints: [WebhookEndpoint]
        var secret: [UInt8]
        var allowPrivate = false
        var maxAttempts = 12
        var retryDelay: TimeInterval = 5
        /// How often an idle instance looks at the outbox (events from other instances appear there too).
        var pollInterval: TimeInterval = 0.2
        /// How long a claimed delivery is this instance's before it is due again.
        var lease: TimeInterval = 60
        var batch = 50
        var timeout: TimeInterval = 10
        /// How a delivery looks the endpoint's name up, once, before it connects (tests stand in for DNS).
        var lookUp: @Sendable (String, Int) -> [SocketAddress] = WebhookAddressPolicy.addresses(of:port:)
    }

    let store: Store
    let settings: Settings
    let logger: Logger
    let delivered: Counter
    let failed: Counter
    let abandoned: Counter

    init(store: Store, settings: Settings, logger: Logger, metrics: any MetricsFactory) {
        self.store = store
        self.settings = settings
        self.logger = logger
        let counters = OutboxPolling.Counters(label: "latchkey_webhook_deliveries_total", factory: metrics)
        (delivered, failed, abandoned) = (counters.delivered, counters.failed, counters.abandoned)
    }

    func run() async throws {
        await OutboxPolling.run(
            pollInterval: settings.pollInterval, timeout: settings.timeout, logger: logger,
            unreadable: "webhook delivery could not read the outbox"
        ) { clients, now in try await runOnce(clients: clients, now: now) }
    }

    /// One round: claims what is due and delivers it, one at a time. Returns how many deliveries it tried.
    func runOnce(clients: WebhookClients, now: Date) async throws -> Int {
        let due = try await store.webhookOutbox.claim(
            endpoints: settings.endpoints.map(\.id), now: now, leaseUntil: now + settings.lease, limit: settings.batch)
        for item in due {
            await deliver(item, clients: clients)
        }
        return due.count
    }

    private func deliver(_ item: WebhookOutboxStore.WebhookDue, clients: WebhookClients) async {
        guard let endpoint = settings.endpoints.first(where: { $0.id == item.endpoint }), let event = item.event else {
            // The endpoint's URL was taken out of the configuration, or the event is past its retention.
            try? await store.webhookOutbox.finish(auditId: item.auditId, endpoint: item.endpoint)
            return
        }
        let outcome: String?
        switch await OutboxPolling.resolve(endpoint, allowPrivate: settings.allowPrivate, lookUp: settings.lookUp) {
        case .refused(let refusal):
            outcome = refusal
        case .reachable(let addresses):
            outcome = await post(event, to: endpoint, client: await clients.client(for: endpoint, at: addresses))
        }
        do {
            guard let error = outcome else {
                try await store.webhookOutbox.finish(auditId: item.auditId, endpoint: item.endpoint)
                delivered.increment()
                return
            }
            if item.attempt >= settings.maxAttempts {
                try await store.webhookOutbox.finish(auditId: item.auditId, endpoint: item.endpoint)
                abandoned.increment()
                logger.error("webhook delivery given up", metadata: [
                    "endpoint": "\(endpoint.url.host ?? "?")", "event": "\(item.auditId)", "attempts": "\(item.attempt)", "error": "\(error)",
                ])
                return
            }
            failed.increment()
            let delay = OutboxPolling.retryDelay(base: settings.retryDelay, attempt: item.attempt)
            try await store.webhookOutbox.retry(auditId: item.auditId, endpoint: item.endpoint, next: Date() + delay, error: error)
            logger.info("webhook delivery failed; retrying", metadata: [
                "endpoint": "\(endpoint.url.host ?? "?")", "event": "\(item.auditId)", "attempt": "\(item.attempt)",
                "retry_in_s": "\(Int(delay))", "error": "\(error)",
            ])
        } catch {
            // The lease runs out and the delivery is claimed again.
            logger.warning("webhook outbox could not be updated", metadata: ["error": "\(DatabaseFailure.summary(error))"])
        }
    }

    /// POSTs `event`; nil when the endpoint took it (2xx), else what went wrong.
    private func post(_ event: AuditEvent, to endpoint: WebhookEndpoint, client: HTTPClient) async -> String? {
        let body: [UInt8]
        do {
            body = try Array(JSONResponse.encoder.encode(WebhookPayload(event)))
        } catch {
            return "the event could not be encoded"
        }
        var request = HTTPClientRequest(url: endpoint.url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "Latchkey-Webhooks/1")
        request.headers.add(name: "Latchkey-Event-Id", value: String(item: event))
        request.headers.add(name: WebhookSignature.header, value: WebhookSignature.value(
            body: body, timestamp: Int64(Date().timeIntervalSince1970), secret: settings.secret))
        request.body = .bytes(ByteBuffer(bytes: body))
        return await OutboxPolling.send(request, with: client, timeout: settings.timeout)
    }
}

extension String {
    /// An event's id as webhooks name it.
    fileprivate init(item event: AuditEvent) {
        self = event.id.map { "evt_\($0)" } ?? "evt_unknown"
    }
}

/// What a webhook delivers: `{"id": "evt_<n>", "type": "<event>", "createdAt": …, "data": <the audit event>}`.
struct WebhookPayload: Encodable {
    let id: String
    let type: String
    let createdAt: Date
    let data: AuditEventJSON

    init(_ event: AuditEvent) {
        id = String(item: event)
        type = event.kind.rawValue
        createdAt = event.at
        data = AuditEventJSON(event)
    }
}
