import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix

/// The HTTP clients webhook deliveries go through, each made to connect to an address the policy checked
/// (`WebhookAddressPolicy.resolve`) instead of looking the name up again (fourth review, S4-9: between
/// the check and AsyncHTTPClient's own lookup, a name with a TTL of 0 could turn from a public address
/// to 10.x or 169.254.169.254).
///
/// AsyncHTTPClient has no resolver hook; its `dnsOverride` maps a name to the host it connects to, while
/// the request keeps the name in its `Host` header and as TLS's server name, the certificate checked
/// against it. So a name gets a client of its own, pinned to one of the addresses just checked, and
/// kept (with its pooled connections) as long as each lookup still finds that address; when it does not,
/// the name gets a new client pinned to one it found, and the old one is shut down. A literal address
/// is connected to as it is: no lookup is made for it.
actor WebhookClients {
    private let configuration: HTTPClient.Configuration
    /// For URLs that name an address.
    private let literal: HTTPClient
    /// Per name: the address its client connects to, and the client.
    private var pinned: [String: (address: String, client: HTTPClient)] = [:]

    init(configuration: HTTPClient.Configuration) {
        self.configuration = configuration
        literal = HTTPClient(eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton), configuration: configuration)
    }

    /// The client that reaches `endpoint` at one of `addresses`, all of which were checked just now.
    func client(for endpoint: WebhookEndpoint, at addresses: [String]) async -> HTTPClient {
        guard let host = endpoint.url.host,
              (try? SocketAddress(ipAddress: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: 0)) == nil,
              let first = addresses.first
        else { return literal }
        if let current = pinned[host], addresses.contains(current.address) { return current.client }
        var configuration = configuration
        configuration.dnsOverride = [host: first]
        let client = HTTPClient(eventLoopGroupProvider: .shared(MultiThreadedEventLoopGroup.singleton), configuration: configuration)
        if let old = pinned.updateValue((first, client), forKey: host) {
            // Deliveries are made one at a time (`WebhookDelivery.runOnce`): none is still on it.
            try? await old.client.shutdown()
        }
        return client
    }

    /// Shuts every client down.
    func shutdown() async {
        for (_, entry) in pinned { try? await entry.client.shutdown() }
        pinned = [:]
        try? await literal.shutdown()
    }
}
