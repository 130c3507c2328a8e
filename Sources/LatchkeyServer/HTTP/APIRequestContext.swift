import Hummingbird
import NIOCore

/// The request context of `latchkey serve`'s routes: Hummingbird's basic one plus the connection's peer
/// address, which the rate limiter keys on (nil only when there is no socket: in-process tests), and the
/// signed-in account for handlers behind `LatchkeyAuthenticationMiddleware`.
public struct APIRequestContext: LatchkeyRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?
    public var latchkeyAccount: LatchkeyAccount?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }
}
