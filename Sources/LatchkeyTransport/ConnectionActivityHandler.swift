import NIOCore
import NIOHTTP1

/// Tells the `ConnectionLimiter` what its connection is doing — waiting for a request, receiving one,
/// or answering one — so that at the connection limit the one that has waited longest without a
/// complete request makes room (third review, finding 5), and tells `RequestHeadDeadlineHandler` when a
/// head is complete and when the next one is awaited.
///
/// It sits right after the HTTP/1 request decoder, where requests arrive as parts and responses leave
/// as parts; pipelined requests are counted, so a connection answering one request while the next one
/// arrives stays `answering`.
package final class ConnectionActivityHandler: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias InboundOut = HTTPServerRequestPart
    package typealias OutboundIn = HTTPServerResponsePart
    package typealias OutboundOut = HTTPServerResponsePart

    private let connection: ConnectionLimiter.Connection?
    private let head: RequestHeadDeadlineHandler.HeadProgress?
    /// Requests received in full and not yet answered in full.
    private var answering = 0
    /// A head came and its end has not.
    private var receiving = false

    package init(connection: ConnectionLimiter.Connection?, head: RequestHeadDeadlineHandler.HeadProgress?) {
        self.connection = connection
        self.head = head
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            head?.headCompleted()
            receiving = true
            report()
        case .end:
            receiving = false
            answering += 1
            report()
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data), answering > 0 {
            answering -= 1
            if answering == 0, !receiving { head?.awaitingHead = true }
            report()
        }
        context.write(data, promise: promise)
    }

    private func report() {
        connection?.record(answering > 0 ? .answering : receiving ? .receiving : .waiting)
    }
}
