import AsyncHTTPClient
import Hummingbird
import HummingbirdTesting
import NIOConcurrencyHelpers
import NIOCore
import Testing
@testable import LatchkeyServer

/// A delivery reaches the address its one lookup found and the policy checked, never one a second lookup
/// found (fourth review, S4-9: AsyncHTTPClient used to resolve the name again when it connected, so a name
/// answering a public address, then 169.254.169.254 with a TTL of 0, passed the check).
@Suite("Webhook clients")
struct WebhookClientsTests {
    /// A receiver on 127.0.0.1 recording each request's `Host`; `body` gets its port.
    static func withReceiver(_ body: @escaping @Sendable (Int, NIOLockedValueBox<[String]>) async throws -> Void) async throws {
        let hosts = NIOLockedValueBox<[String]>([])
        let router = Router()
        router.post("hook") { request, _ -> HTTPResponse.Status in
            hosts.withLockedValue { $0.append(request.head.authority ?? "") }
            return .noContent
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { client in
            try await body(try #require(client.port), hosts)
        }
    }

    /// `texts` as socket addresses on `port` (a lookup's answer).
    static func addresses(_ texts: String..., port: Int) -> [SocketAddress] {
        texts.compactMap { try? SocketAddress(ipAddress: $0, port: port) }
    }

    @Test("the request goes to the address the policy checked, with the name as its Host; the name is looked up once")
    func connectsToTheCheckedAddress() async throws {
        try await Self.withReceiver { port, hosts in
            // A name no DNS knows: only the policy's lookup can resolve it. A second lookup (as
            // AsyncHTTPClient made on its own) would fail, or find the rebound address.
            let endpoint = try #require(WebhookEndpoint(parsing: "http://rebind.test:\(port)/hook"))
            let lookUps = NIOLockedValueBox(0)
            let lookUp: @Sendable (String, Int) -> [SocketAddress] = { host, port in
                let n = lookUps.withLockedValue { $0 += 1; return $0 }
                return Self.addresses(n == 1 ? "127.0.0.1" : "10.9.9.9", port: port)
            }
            let resolution = WebhookAddressPolicy.resolve(endpoint, allowPrivate: true, lookUp: lookUp)
            #expect(resolution == .reachable(addresses: ["127.0.0.1"]))
            guard case .reachable(let addresses) = resolution else { return }
            let clients = WebhookClients(configuration: .init())
            var request = HTTPClientRequest(url: endpoint.url.absoluteString)
            request.method = .POST
            let client = await clients.client(for: endpoint, at: addresses)
            let response = try await client.execute(request, timeout: .seconds(10))
            #expect(response.status == .noContent)
            #expect(hosts.withLockedValue { $0 } == ["rebind.test:\(port)"])
            #expect(lookUps.withLockedValue { $0 } == 1)
            // The same checked address keeps its client (and its connection); another gets a new one.
            #expect(await clients.client(for: endpoint, at: ["10.0.0.2", "127.0.0.1"]) === client)
            #expect(await clients.client(for: endpoint, at: ["10.0.0.2"]) !== client)
            await clients.shutdown()
        }
    }

    @Test("without --webhook-allow-private, an internal address among the name's addresses refuses the delivery")
    func refusesWhatTheLookupFound() throws {
        let endpoint = try #require(WebhookEndpoint(parsing: "https://hooks.example.com/x"))
        let mixed: @Sendable (String, Int) -> [SocketAddress] = { _, port in
            Self.addresses("8.8.8.8", "64:ff9b::a9fe:a9fe", port: port)
        }
        guard case .refused(let refusal) = WebhookAddressPolicy.resolve(endpoint, allowPrivate: false, lookUp: mixed) else {
            Issue.record("a name resolving to NAT64's 169.254.169.254 was accepted")
            return
        }
        #expect(refusal.contains("64:ff9b::a9fe:a9fe") && refusal.contains("--webhook-allow-private"), "\(refusal)")
        let nothing: @Sendable (String, Int) -> [SocketAddress] = { _, _ in [] }
        #expect(WebhookAddressPolicy.resolve(endpoint, allowPrivate: false, lookUp: nothing) == .refused("hooks.example.com does not resolve"))
        let public4: @Sendable (String, Int) -> [SocketAddress] = { _, port in Self.addresses("8.8.8.8", port: port) }
        #expect(WebhookAddressPolicy.resolve(endpoint, allowPrivate: false, lookUp: public4) == .reachable(addresses: ["8.8.8.8"]))
    }
}
