import AsyncHTTPClient
import Foundation
import NIOCore

/// The keys of `private_key_jwt` clients that publish them (`jwks_uri`) rather than registering them:
/// fetched when an assertion needs them, as a webhook is delivered — the host looked up once and every
/// address checked (`WebhookAddressPolicy`: nothing outside the public internet without
/// `--webhook-allow-private`), the request pinned to a checked address — with a time-out, the answer read
/// up to `maxBytes` and judged by the rules of registered keys (`OIDCClientRules.jwks`). A document is kept
/// `lifetime` (so a client's rotation reaches Latchkey within minutes), a failure `failureLifetime` (so
/// assertions naming a client whose keys cannot be fetched do not each make a request), and at most
/// `capacity` URLs (the clients an operator registered: the cache is emptied when it is full).
actor OIDCClientKeySets {
    static let lifetime: TimeInterval = 300
    static let failureLifetime: TimeInterval = 30
    static let capacity = 256
    static let maxBytes = 64 * 1024
    static let timeout: Int64 = 5

    let allowPrivate: Bool
    private let lookUp: @Sendable (String, Int) -> [SocketAddress]
    private var cache: [String: (jwks: String?, until: Date)] = [:]

    init(allowPrivate: Bool, lookUp: @escaping @Sendable (String, Int) -> [SocketAddress] = WebhookAddressPolicy.addresses(of:port:)) {
        self.allowPrivate = allowPrivate
        self.lookUp = lookUp
    }

    /// The JWKS document published at `uri`, or nil when it cannot be had (refused address, no answer,
    /// not 200, too large, not a JWKS of public keys).
    func jwks(at uri: String, now: Date) async -> String? {
        if let kept = cache[uri], kept.until > now { return kept.jwks }
        let fetched = await Self.fetch(uri, allowPrivate: allowPrivate, lookUp: lookUp)
        if cache.count >= Self.capacity { cache = [:] }
        cache[uri] = (fetched, now.addingTimeInterval(fetched == nil ? Self.failureLifetime : Self.lifetime))
        return fetched
    }

    private static func fetch(_ uri: String, allowPrivate: Bool, lookUp: @escaping @Sendable (String, Int) -> [SocketAddress]) async -> String? {
        guard let endpoint = WebhookEndpoint(parsing: uri) else { return nil }
        guard case .reachable(let addresses) = await OutboxPolling.resolve(endpoint, allowPrivate: allowPrivate, lookUp: lookUp) else { return nil }
        // A client of its own, pinned to a checked address (no second lookup), shut down after the one request.
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow, timeout: .init(connect: .seconds(timeout), read: .seconds(timeout)))
        if let host = endpoint.url.host, let first = addresses.first,
           (try? SocketAddress(ipAddress: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: 0)) == nil {
            configuration.dnsOverride = [host: first]
        }
        configuration.httpVersion = .http1Only
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        var request = HTTPClientRequest(url: uri)
        request.headers.add(name: "Accept", value: "application/jwk-set+json, application/json")
        var text: String?
        do {
            let response = try await client.execute(request, timeout: .seconds(timeout))
            let body = try await response.body.collect(upTo: maxBytes)
            if response.status.code == 200 { text = String(buffer: body) }
        } catch {
            text = nil
        }
        try? await client.shutdown()
        guard let text, (try? OIDCClientRules.jwks(text)) != nil else { return nil }
        return text
    }
}
