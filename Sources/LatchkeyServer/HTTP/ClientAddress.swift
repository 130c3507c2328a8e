import HTTPTypes
import Hummingbird
import NIOCore

/// The address a request came from: the connection's peer, or — behind a reverse proxy Latchkey is told
/// to trust (`--trust-forwarded-for`), where every connection comes from the proxy — the address the
/// proxy appended last to `X-Forwarded-For` (earlier entries are whatever the client claimed). The rate
/// limiter counts by it; the audit trail records it.
enum ClientAddress {
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!

    /// The last `X-Forwarded-For` entry, when the header is trusted and present.
    static func forwarded(in request: Request, trusted: Bool) -> Substring? {
        guard trusted, let header = request.headers[values: forwardedFor].last else { return nil }
        return header.split(separator: ",").last
    }

    /// The client's IP address as text (nil without a socket: in-process tests). A forwarded entry that
    /// is not an IP address is not believed, and the peer's address is given instead.
    static func text(of request: Request, context: some RequestContext, trustForwardedFor: Bool) -> String? {
        if let forwarded = forwarded(in: request, trusted: trustForwardedFor) {
            let trimmed = forwarded.trimmingCharacters(in: .whitespaces)
            let bare = trimmed.hasPrefix("[") && trimmed.hasSuffix("]") ? String(trimmed.dropFirst().dropLast()) : trimmed
            if let address = try? SocketAddress(ipAddress: bare, port: 0) { return address.ipAddress }
        }
        return ((context as? any RemoteAddressRequestContext)?.remoteAddress)?.ipAddress
    }
}

extension AuditOrigin {
    /// The origin of a change made by `request`: its client address, `User-Agent` and request id.
    init(_ request: Request, context: some RequestContext, actor: String, trustForwardedFor: Bool) {
        self.init(
            actor: actor, clientAddress: ClientAddress.text(of: request, context: context, trustForwardedFor: trustForwardedFor),
            userAgent: request.headers[.userAgent], requestId: context.id)
    }
}
