import NIOCore
import NIOHTTP1

/// Closes a connection whose request body has not fully arrived within `limit` of its head. The idle
/// time-out alone does not end a slow body: every byte of a body is a request part, so a client that
/// trickles one byte a second could hold a connection for as long as it likes (slowloris). A request
/// head sent slowly never becomes a part; `RequestHeadDeadlineHandler` and the idle time-out end it.
package final class RequestDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias InboundOut = HTTPServerRequestPart

    private let deadline: LazyDeadline

    package init(limit: TimeAmount) {
        self.deadline = LazyDeadline(limit: limit)
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head: deadline.start(context: context)
        case .end: deadline.clear()
        case .body: break
        }
        context.fireChannelRead(data)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        deadline.stop()
        context.fireChannelInactive()
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        deadline.stop()
    }
}
