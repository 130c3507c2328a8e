import NIOCore

/// Who a request is counted against: an IPv4 address, or an IPv6 /64 — the block one subscriber or one
/// cloud machine usually gets, so an attacker cannot dodge the limit by rotating the low 64 bits.
/// IPv4-mapped IPv6 addresses count as the IPv4 address they carry.
package enum RateLimitClient: Hashable, Sendable {
    case v4(UInt32)
    case v6Prefix(UInt64)

    package init?(_ address: SocketAddress) {
        switch address {
        case .v4(let v4):
            self = .v4(UInt32(bigEndian: v4.address.sin_addr.s_addr))
        case .v6(let v6):
            // The 16 address bytes as two big-endian halves: the /64 prefix, and the interface part.
            let (prefix, interface) = withUnsafeBytes(of: v6.address.sin6_addr) {
                ($0.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }, $0.suffix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            }
            // ::ffff:a.b.c.d carries an IPv4 address in its last four bytes.
            if prefix == 0, interface >> 32 == 0xffff {
                self = .v4(UInt32(truncatingIfNeeded: interface))
            } else {
                self = .v6Prefix(prefix)
            }
        case .unixDomainSocket:
            return nil
        }
    }

    /// Who this is as text, for a row that is bounded per requester (device requests): `192.0.2.1`, or
    /// `2001:db8:1:2::/64`.
    package var requesterKey: String {
        switch self {
        case .v4(let address):
            return (0..<4).map { String(address >> (24 - 8 * $0) & 0xff) }.joined(separator: ".")
        case .v6Prefix(let prefix):
            return (0..<4).map { String(prefix >> (48 - 16 * $0) & 0xffff, radix: 16) }.joined(separator: ":") + "::/64"
        }
    }

    /// A textual IPv4 or IPv6 address (as a proxy writes it in `X-Forwarded-For`); nil when it is not one.
    package init?(text: some StringProtocol) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        // A bracketed IPv6 address, as some proxies write it.
        let bare = trimmed.hasPrefix("[") && trimmed.hasSuffix("]") ? String(trimmed.dropFirst().dropLast()) : trimmed
        guard let address = try? SocketAddress(ipAddress: bare, port: 0) else { return nil }
        self.init(address)
    }
}
