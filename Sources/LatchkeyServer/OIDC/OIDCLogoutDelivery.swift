import AsyncHTTPClient
import Foundation
import LatchkeyDatabase
import Logging
import Metrics
import NIOCore
import NIOPosix
import ServiceLifecycle

/// Delivers back-channel logout tokens (OpenID Connect Back-Channel Logout 1.0 §2.5) in the background,
/// through the webhooks' machinery: the transactions that ended sessions queued them
/// (`Store+OIDCLogout`); this service claims due ones under a lease (on PostgreSQL skipping rows another
/// instance holds), signs each with the provider's keys in the client's id_token algorithm
/// (`OIDCLogoutTokenClaims`, typed `logout+jwt`, its `iat` the moment it is sent), and POSTs it as
/// `logout_token` in a form to the client's `backchannel_logout_uri`. A 2xx answer deletes it; anything
/// else is retried after `retryDelay`, doubling (at most an hour apart), and after `maxAttempts` given
/// up and logged. The token keeps its `jti` across attempts, so a relying party that got it once and
/// answered too late tells the repeat. The address is checked as a webhook's is (`WebhookAddressPolicy`,
/// `--webhook-allow-private` for receivers inside the network) and reached by the address checked
/// (`WebhookClients`). A client removed, or its URI taken away, drops what was queued for it.
struct OIDCLogoutDelivery: Service {
    struct Settings: Sendable {
        var issuer: String
        var allowPrivate = false
        var maxAttempts = 12
        var retryDelay: TimeInterval = 5
        var pollInterval: TimeInterval = 0.2
        var lease: TimeInterval = 60
        var batch = 50
        var timeout: TimeInterval = 10
        var lookUp: @Sendable (String, Int) -> [SocketAddress] = WebhookAddressPolicy.addresses(of:port:)
    }

    let store: Store
    let tokens: AccessTokenIssuer
    let settings: Settings
    let logger: Logger
    let delivered: Counter
    let failed: Counter
    let abandoned: Counter

    init(store: Store, tokens: AccessTokenIssuer, settings: Settings, logger: Logger, metrics: any MetricsFactory) {
        self.store = store
        self.tokens = tokens
        self.settings = settings
        self.logger = logger
        let counters = OutboxPolling.Counters(label: "latchkey_oidc_backchannel_logouts_total", factory: metrics)
        (delivered, failed, abandoned) = (counters.delivered, counters.failed, counters.abandoned)
    }

    func run() async throws {
        await OutboxPolling.run(
            pollInterval: settings.pollInterval, timeout: settings.timeout, logger: logger,
            unreadable: "back-channel logout could not read its outbox"
        ) { clients, now in try await runOnce(clients: clients, now: now) }
    }

    /// One round: claims what is due and delivers it, one at a time. Returns how many it tried.
    func runOnce(clients: WebhookClients, now: Date) async throws -> Int {
        let due = try await store.claimOIDCLogouts(now: now, leaseUntil: now + settings.lease, limit: settings.batch)
        for item in due { await deliver(item, clients: clients) }
        return due.count
    }

    private func deliver(_ item: Store.OIDCLogoutDue, clients: WebhookClients) async {
        let client: OIDCClientRecord?
        do {
            client = try await store.oidcClients.client(id: item.clientId)
        } catch {
            return // The lease runs out and it is claimed again.
        }
        guard let client, let uri = client.backchannelLogoutURI, let endpoint = WebhookEndpoint(parsing: uri) else {
            try? await store.finishOIDCLogout(jti: item.jti)
            return
        }
        let outcome: String?
        switch await OutboxPolling.resolve(endpoint, allowPrivate: settings.allowPrivate, lookUp: settings.lookUp) {
        case .refused(let refusal):
            outcome = refusal
        case .reachable(let addresses):
            outcome = await post(item, for: client, to: endpoint, client: await clients.client(for: endpoint, at: addresses))
        }
        do {
            guard let error = outcome else {
                try await store.finishOIDCLogout(jti: item.jti)
                delivered.increment()
                return
            }
            if item.attempt >= settings.maxAttempts {
                try await store.finishOIDCLogout(jti: item.jti)
                abandoned.increment()
                logger.error("back-channel logout given up", metadata: [
                    "client": "\(client.id)", "host": "\(endpoint.url.host ?? "?")", "attempts": "\(item.attempt)", "error": "\(error)",
                ])
                return
            }
            failed.increment()
            let delay = OutboxPolling.retryDelay(base: settings.retryDelay, attempt: item.attempt)
            try await store.retryOIDCLogout(jti: item.jti, next: Date() + delay, error: error)
            logger.info("back-channel logout failed; retrying", metadata: [
                "client": "\(client.id)", "host": "\(endpoint.url.host ?? "?")", "attempt": "\(item.attempt)",
                "retry_in_s": "\(Int(delay))", "error": "\(error)",
            ])
        } catch {
            logger.warning("back-channel logout outbox could not be updated", metadata: ["error": "\(DatabaseFailure.summary(error))"])
        }
    }

    /// POSTs the signed token (§2.5: `logout_token` in an `application/x-www-form-urlencoded` body); nil
    /// when the relying party took it (2xx), else what went wrong.
    private func post(_ item: Store.OIDCLogoutDue, for client: OIDCClientRecord, to endpoint: WebhookEndpoint, client http: HTTPClient) async -> String? {
        let token: String
        do {
            let claims = OIDCLogoutTokenClaims(
                issuer: settings.issuer, clientId: client.id, accountId: item.accountId, sid: item.sid, jti: item.jti, at: Date())
            token = try await tokens.sign(claims, algorithm: client.idTokenAlgorithm, type: OIDCLogoutTokenClaims.type)
        } catch {
            return "the logout token could not be signed"
        }
        var request = HTTPClientRequest(url: endpoint.url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "User-Agent", value: "Latchkey-Backchannel-Logout/1")
        // A JWT is base64url and dots: nothing in it needs percent-encoding.
        request.body = .bytes(ByteBuffer(string: "logout_token=" + token))
        return await OutboxPolling.send(request, with: http, timeout: settings.timeout)
    }
}
