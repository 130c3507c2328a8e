import AsyncHTTPClient
import Foundation
import Logging
import MetricsTestKit
import NIOCore
import Testing
@testable import LatchkeyServer

/// Webhooks in process (`AuditTrail`'s outbox, `WebhookDelivery`), to a `WebhookReceiver` on 127.0.0.1,
/// as Tests/System/Webhooks/test_webhooks.py does with the binary: every audit event arrives once, signed with
/// the shared secret; a receiver that was down gets them once it is back; an endpoint on an internal
/// address is refused at start-up, and at delivery when its name resolves to one, unless private
/// addresses are allowed (the loopback allowance these tests, like Tests/System/Webhooks, deliver through).
@Suite("Webhooks, in process")
struct WebhookDeliveryTests {
    static let secret = "Wc7pYq2LrT9vXz4KmN8sB3dF6hJ1gA5e"

    static func configuration(_ receiver: WebhookReceiver) throws -> ServerConfiguration {
        let endpoint = try #require(WebhookEndpoint(parsing: receiver.url))
        return TestServer.configuration {
            $0.webhookEndpoints = [endpoint]
            $0.webhookSecret = secret
            $0.webhookAllowPrivate = true
            $0.webhookRetryDelay = 1
        }
    }

    /// Runs `body` with a receiver and a server delivering to it; stops the receiver afterwards.
    static func run(_ body: @Sendable (APIClient, LatchkeyApplication, WebhookReceiver) async throws -> Void) async throws {
        let receiver = try await WebhookReceiver()
        do {
            try await TestServer.withApplication(try configuration(receiver)) { api, application in try await body(api, application, receiver) }
        } catch {
            try? await receiver.stop()
            throw error
        }
        try await receiver.stop()
    }

    /// The ids of every event in the trail, as webhooks name them (`evt_<n>`).
    static func trailIds(_ store: Store) async throws -> [String] {
        try await store.auditEvents(Store.AuditQuery(limit: 500)).compactMap { $0.id.map { "evt_\($0)" } }.sorted()
    }

    /// Waits until the outbox is empty and the receiver holds as many deliveries as the trail has events.
    static func allDelivered(_ store: Store, _ receiver: WebhookReceiver) async throws -> Bool {
        try await eventually {
            let pending = try await store.webhookOutbox.pendingCount()
            let events = try await trailIds(store).count
            return pending == 0 && receiver.accepted.count >= events
        }
    }

    @Test("every audit event arrives once, signed with the shared secret, named by Latchkey-Event-Id")
    func signedOnce() async throws {
        try await Self.run { api, application, receiver in
            let ada = try await api.signUp()
            let again = try await api.signIn(with: ada.authenticator)
            #expect(try await api.send(.post, "/api/logout", token: again.token).status.code < 300)
            try #require(try await Self.allDelivered(application.store, receiver), "not all delivered: \(receiver.accepted.count) taken")
            try await Task.sleep(for: .milliseconds(300))  // a few polls more: nothing is delivered again

            let deliveries = receiver.accepted
            let trail = try await Self.trailIds(application.store)
            #expect(trail.count >= 4, "\(trail)")
            #expect(deliveries.compactMap { $0.json?["id"] as? String }.sorted() == trail, "each event once")
            let kinds = Dictionary(uniqueKeysWithValues: try await application.store.auditEvents(Store.AuditQuery(limit: 500)).map { ("evt_\($0.id ?? 0)", $0.kind.rawValue) })
            for delivery in deliveries {
                let signature = delivery.headers.first(name: WebhookSignature.header)
                #expect(WebhookReceiver.verifies(signature, body: delivery.body, secret: Self.secret), "\(signature ?? "no signature")")
                #expect(!WebhookReceiver.verifies(signature, body: delivery.body, secret: String(Self.secret.reversed())), "another secret does not verify")
                let payload = try #require(delivery.json)
                let id = try #require(payload["id"] as? String)
                #expect(delivery.headers.first(name: "Latchkey-Event-Id") == id)
                #expect(payload["type"] as? String == kinds[id], "\(payload)")
                #expect(delivery.headers.first(name: "Content-Type") == "application/json")
            }
            let types = Set(deliveries.compactMap { $0.json?["type"] as? String })
            #expect(types.isSuperset(of: ["account.created", "login.succeeded", "session.ended"]), "\(types)")
        }
    }

    @Test("a receiver that was down gets every event once it is back, each once")
    func downThenUp() async throws {
        try await Self.run { api, application, receiver in
            receiver.setDown(true)
            let ada = try await api.signUp()
            _ = try await api.signIn(with: ada.authenticator)
            try #require(try await eventually { receiver.refused >= 1 }, "the delivery was tried while down")
            #expect(receiver.accepted.isEmpty)
            #expect(try await application.store.webhookOutbox.pendingCount() > 0, "kept in the outbox")
            receiver.setDown(false)
            try #require(try await Self.allDelivered(application.store, receiver))
            #expect(receiver.accepted.compactMap { $0.json?["id"] as? String }.sorted() == (try await Self.trailIds(application.store)))
        }
    }

    @Test("an endpoint on an internal address is refused at start-up without webhookAllowPrivate, naming the flag")
    func internalAtStartup() throws {
        for url in ["http://127.0.0.1:9/hook", "http://10.1.2.3/hook", "http://[::1]/hook", "http://169.254.169.254/latest", "http://[64:ff9b::a9fe:a9fe]/x"] {
            let endpoint = try #require(WebhookEndpoint(parsing: url))
            var configuration = TestServer.configuration {
                $0.webhookEndpoints = [endpoint]
                $0.webhookSecret = Self.secret
            }
            #expect(throws: ServerConfiguration.Invalid.self, "\(url)") { try configuration.validate() }
            do { try configuration.validate() } catch { #expect("\(error)".contains("--webhook-allow-private"), "\(url): \(error)") }
            configuration.webhookAllowPrivate = true
            #expect(throws: Never.self, "\(url), allowed") { try configuration.validate() }
        }
    }

    @Test("a name that resolves to an internal address is refused at delivery and kept for later; allowed, the same delivery reaches the address checked")
    func internalAtDelivery() async throws {
        let receiver = try await WebhookReceiver()
        try await Backends.with("sqlite-memory") { plain in
            let endpoint = try #require(WebhookEndpoint(parsing: "http://hooks.example.com:\(receiver.port)/hook"))
            let store = Store(connections: plain.connections, webhookEndpoints: [endpoint.id])
            try await store.record(AuditOrigin.test.event(.accountCreated, at: Date(), account: "someone"))
            #expect(try await store.webhookOutbox.pendingCount() == 1)
            let clients = WebhookClients(configuration: HTTPClient.Configuration())
            func delivery(allowPrivate: Bool, metrics: TestMetrics) -> WebhookDelivery {
                // The name "resolves" to the receiver's loopback address, as a DNS answer could.
                let settings = WebhookDelivery.Settings(
                    endpoints: [endpoint], secret: Array(Self.secret.utf8), allowPrivate: allowPrivate,
                    lookUp: { _, port in [try! SocketAddress(ipAddress: "127.0.0.1", port: port)] })
                return WebhookDelivery(store: store, settings: settings, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, metrics: metrics)
            }
            let refusing = TestMetrics()
            #expect(try await delivery(allowPrivate: false, metrics: refusing).runOnce(clients: clients, now: Date()) == 1)
            #expect(receiver.accepted.isEmpty, "nothing reached the internal address")
            #expect(refusing.counterTotal(label: "latchkey_webhook_deliveries_total", dimensions: [("result", "failed")]) == 1)
            #expect(try await store.webhookOutbox.pendingCount() == 1, "kept, to be tried again")
            let why = try await store.connections.withConnection { db in
                try await db.raw("SELECT last_error FROM webhook_outbox").first()?.decode(column: "last_error", as: String.self)
            }
            #expect(why?.contains("hooks.example.com") == true && why?.contains("--webhook-allow-private") == true, "\(why ?? "nil")")

            let allowing = TestMetrics()
            #expect(try await delivery(allowPrivate: true, metrics: allowing).runOnce(clients: clients, now: Date() + 3600) == 1)
            #expect(receiver.accepted.count == 1 && allowing.counterTotal(label: "latchkey_webhook_deliveries_total", dimensions: [("result", "delivered")]) == 1)
            #expect(try await store.webhookOutbox.pendingCount() == 0)
            await clients.shutdown()
        }
        try await receiver.stop()
    }

    @Test("a delivery that keeps failing is given up after its last attempt, counted, and leaves the outbox")
    func givenUp() async throws {
        let receiver = try await WebhookReceiver()
        receiver.setDown(true)
        try await Backends.with("sqlite-memory") { plain in
            let endpoint = try #require(WebhookEndpoint(parsing: receiver.url))
            let store = Store(connections: plain.connections, webhookEndpoints: [endpoint.id])
            try await store.record(AuditOrigin.test.event(.accountCreated, at: Date(), account: "someone"))
            let clients = WebhookClients(configuration: HTTPClient.Configuration())
            let metrics = TestMetrics()
            let delivery = WebhookDelivery(
                store: store, settings: .init(endpoints: [endpoint], secret: Array(Self.secret.utf8), allowPrivate: true, maxAttempts: 2),
                logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }, metrics: metrics)
            #expect(try await delivery.runOnce(clients: clients, now: Date()) == 1)
            #expect(try await delivery.runOnce(clients: clients, now: Date()) == 0, "the retry waits its delay")
            #expect(try await store.webhookOutbox.pendingCount() == 1)
            #expect(try await delivery.runOnce(clients: clients, now: Date() + 3600) == 1)
            #expect(try await store.webhookOutbox.pendingCount() == 0, "given up")
            #expect(receiver.refused == 2)
            #expect(metrics.counterTotal(label: "latchkey_webhook_deliveries_total", dimensions: [("result", "failed")]) == 1)
            #expect(metrics.counterTotal(label: "latchkey_webhook_deliveries_total", dimensions: [("result", "abandoned")]) == 1)
            await clients.shutdown()
        }
        try await receiver.stop()
    }
}
