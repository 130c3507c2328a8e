import Hummingbird
import NIOCore

/// The request context every route gets: Hummingbird's basic one plus the connection's peer address,
/// which the rate limiter keys on. The address is nil only when there is no socket (in-process tests).
public struct APIRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }
}
