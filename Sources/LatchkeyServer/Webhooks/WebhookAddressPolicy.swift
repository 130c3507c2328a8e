import Foundation
import NIOCore

/// Webhooks go to the public internet, never to this machine or its private network, unless the operator
/// says otherwise (`--webhook-allow-private`): a URL that names or resolves to an address outside the
/// public internet is refused — loopback, private, link-local, shared (CGNAT), unspecified, IPv4's IETF
/// protocol, benchmarking, multicast and reserved blocks, and in IPv6 everything outside global unicast
/// (2000::/3), after the IPv4 address inside a mapped, NAT64 or 6to4 address is taken out and judged
/// itself (fourth review, S4-9: `64:ff9b::a9fe:a9fe` is 169.254.169.254 on a NAT64 network). A receiver
/// inside the network (tests, a sidecar) needs the flag.
///
/// Checked when the server starts (a literal address) and before every delivery. A delivery resolves the
/// name once (`resolve`), checks every address, and connects to one of exactly those (`WebhookClients`):
/// a second lookup at connect time could answer differently (DNS rebinding with a TTL of 0).
enum WebhookAddressPolicy {
    /// What a delivery may do now: connect to one of `addresses` (each checked), or not, and why.
    enum Resolution: Equatable, Sendable {
        case reachable(addresses: [String])
        case refused(String)
    }

    /// Whether `address` is one webhooks may not reach without `--webhook-allow-private`.
    static func isInternal(_ address: SocketAddress) -> Bool {
        switch address {
        case .v4(let v4):
            return isInternal(ipv4: UInt32(bigEndian: v4.address.sin_addr.s_addr))
        case .v6(let v6):
            return isInternal(ipv6: withUnsafeBytes(of: v6.address.sin6_addr) { Array($0) })
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
            || within(0xC000_0000, 24)         // 192.0.0/24, IETF protocol assignments
            || within(0xC0A8_0000, 16)         // 192.168/16
            || within(0xC612_0000, 15)         // 198.18/15, benchmarking
            || within(0xE000_0000, 4)          // 224/4, multicast
            || within(0xF000_0000, 4)          // 240/4, reserved, and 255.255.255.255, broadcast
    }

    /// `bytes`, the 16 bytes of an IPv6 address.
    static func isInternal(ipv6 bytes: [UInt8]) -> Bool {
        guard bytes.count == 16 else { return true }
        func ipv4(at offset: Int) -> UInt32 { bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) } }
        // ::ffff:0:0/96, an IPv4 address mapped into IPv6, is that IPv4 address.
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return isInternal(ipv4: ipv4(at: 12)) }
        // 64:ff9b::/96, NAT64's well-known prefix (RFC 6052): the IPv4 address the translator reaches.
        if bytes[0..<12].elementsEqual([0, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0]) { return isInternal(ipv4: ipv4(at: 12)) }
        // 2002::/16, 6to4 (RFC 3056): the IPv4 address in bits 16-47 is where the relay delivers.
        if bytes[0] == 0x20, bytes[1] == 0x02 { return isInternal(ipv4: ipv4(at: 2)) }
        // Everything outside 2000::/3, global unicast: ::, ::1, ::/96 (IPv4-compatible), 64:ff9b:1::/48
        // (NAT64 for local use: this network's own translator), 100::/64, fc00::/7, fe80::/10,
        // fec0::/10 (site-local), ff00::/8 (multicast) and the unassigned rest.
        return bytes[0] & 0xE0 != 0x20
    }

    /// The addresses `host` resolves to now (a literal address is itself).
    @Sendable static func addresses(of host: String, port: Int) -> [SocketAddress] {
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

    /// What the refusals call an address they refuse.
    static let internalWords = "an address outside the public internet (loopback, private, link-local, multicast or reserved)"

    /// At start: why `endpoint` may never be used without `--webhook-allow-private` (it names or resolves
    /// to an internal address), or nil. A name that does not resolve yet is left to the deliveries.
    static func startupRefusal(for endpoint: WebhookEndpoint) -> String? {
        guard let host = endpoint.url.host else { return "the webhook URL \(endpoint) has no host" }
        let addresses = addresses(of: host, port: endpoint.url.port ?? 443)
        guard let inward = addresses.first(where: isInternal) else { return nil }
        return "the webhook URL \(endpoint) names \(inward.ipAddress ?? host), \(internalWords); add --webhook-allow-private to deliver there"
    }

    /// Resolves `endpoint`'s host once with `lookUp` and checks every address it gives: the addresses a
    /// delivery may connect to now, or why it may not be made. With `allowPrivate` every address may be
    /// reached, and the delivery still connects to what this lookup found.
    static func resolve(
        _ endpoint: WebhookEndpoint, allowPrivate: Bool,
        lookUp: (String, Int) -> [SocketAddress] = addresses(of:port:)
    ) -> Resolution {
        guard let host = endpoint.url.host else { return .refused("the webhook URL has no host") }
        let port = endpoint.url.port ?? (endpoint.url.scheme == "https" ? 443 : 80)
        let addresses = lookUp(host, port)
        let texts = addresses.compactMap(\.ipAddress)
        if texts.isEmpty { return .refused("\(host) does not resolve") }
        if !allowPrivate, let inward = addresses.first(where: isInternal) {
            return .refused("\(host) is (or resolves to) \(inward.ipAddress ?? "an internal address"), \(internalWords); add --webhook-allow-private to deliver there")
        }
        return .reachable(addresses: texts)
    }
}
