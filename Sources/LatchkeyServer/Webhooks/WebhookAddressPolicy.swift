import Foundation
import NIOCore

/// Webhooks go to the public internet, never to this machine or its private network, unless the operator
/// says otherwise (`--webhook-allow-private`): a URL that names or resolves to a loopback, private,
/// link-local, shared (CGNAT) or unspecified address is refused. A receiver inside the network (tests, a
/// sidecar) needs the flag. Checked when the server starts (a literal address) and before every delivery
/// (the name's addresses now), so a name that later resolves inward is refused too.
enum WebhookAddressPolicy {
    /// Whether `address` is one webhooks may not reach without `--webhook-allow-private`.
    static func isInternal(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4(let v4):
            return isInternal(ipv4: UInt32(bigEndian: v4.address.sin_addr.s_addr))
        case .v6(let v6):
            let bytes = withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) }
            if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
                // An IPv4 address mapped into IPv6 is that IPv4 address.
                return isInternal(ipv4: UInt32(bytes[12]) << 24 | UInt32(bytes[13]) << 16 | UInt32(bytes[14]) << 8 | UInt32(bytes[15]))
            }
            if bytes.allSatisfy({ $0 == 0 }) { return true }                       // ::
            if bytes[0..<15].allSatisfy({ $0 == 0 }), bytes[15] == 1 { return true } // ::1
            if bytes[0] & 0xFE == 0xFC { return true }                             // fc00::/7, unique local
            if bytes[0] == 0xFE, bytes[1] & 0xC0 == 0x80 { return true }           // fe80::/10, link-local
            return false
        case .unixDomainSocket:
            return true
        }
    }

    static func isInternal(ipv4 a: UInt32) -> Bool {
        func within(_ network: UInt32, _ bits: UInt32) -> Bool { a >> (32 - bits) == network >> (32 - bits) }
        return within(0x0000_0000, 8)          // 0.0.0.0/8
            || within(0x0A00_0000, 8)          // 10/8
            || within(0x6440_0000, 10)         // 100.64/10, shared address space
            || within(0x7F00_0000, 8)          // 127/8
            || within(0xA9FE_0000, 16)         // 169.254/16, link-local (cloud metadata)
            || within(0xAC10_0000, 12)         // 172.16/12
            || within(0xC0A8_0000, 16)         // 192.168/16
    }

    /// The addresses `host` resolves to now (a literal address is itself).
    static func addresses(of host: String, port: Int) -> [SocketAddress] {
        if let literal = try? SocketAddress(ipAddress: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: port) {
            return [literal]
        }
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(list) }
        var found: [SocketAddress] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let current = node {
            if let address = current.pointee.ai_addr {
                switch Int32(address.pointee.sa_family) {
                case AF_INET:
                    address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { found.append(SocketAddress($0.pointee, host: host)) }
                case AF_INET6:
                    address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { found.append(SocketAddress($0.pointee, host: host)) }
                default: break
                }
            }
            node = current.pointee.ai_next
        }
        return found
    }

    /// At start: why `endpoint` may never be used without `--webhook-allow-private` (it names or resolves
    /// to an internal address), or nil. A name that does not resolve yet is left to the deliveries.
    static func startupRefusal(for endpoint: WebhookEndpoint) -> String? {
        guard let host = endpoint.url.host else { return "the webhook URL \(endpoint) has no host" }
        let addresses = addresses(of: host, port: endpoint.url.port ?? 443)
        guard let inward = addresses.first(where: isInternal) else { return nil }
        return "the webhook URL \(endpoint) names \(inward.ipAddress ?? host), a loopback, private or link-local address; add --webhook-allow-private to deliver there"
    }

    /// Why `endpoint` may not be reached now, or nil when it may.
    static func refusal(for endpoint: WebhookEndpoint, allowPrivate: Bool) -> String? {
        guard !allowPrivate, let host = endpoint.url.host else { return nil }
        let port = endpoint.url.port ?? (endpoint.url.scheme == "https" ? 443 : 80)
        let addresses = addresses(of: host, port: port)
        if addresses.isEmpty { return "\(host) does not resolve" }
        if let inward = addresses.first(where: isInternal) {
            return "\(host) is (or resolves to) \(inward.ipAddress ?? "an internal address"), a loopback, private or link-local address; add --webhook-allow-private to deliver there"
        }
        return nil
    }
}
