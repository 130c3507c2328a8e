import NIOCore

/// Closes a connection whose request head has not been completed within `limit` of its first byte.
/// A client that means to send a request sends its head in one go; a half-sent head costs its sender
/// nothing and, with only the idle time-out, held a connection slot for 30 s, renewed at will (third
/// review, finding 5). The clock starts at the first byte, not at the connection: browsers open
/// connections ahead of need and may leave them silent for a while, which the idle time-out ends, and
/// which the connection limit closes first when it needs room (`ConnectionLimiter`).
///
/// It sits before the HTTP/1 request decoder, where bytes arrive; `ConnectionActivityHandler`, after
/// the decoder, says through the shared `HeadProgress` when a head is complete and when the next one is
/// awaited. One lazily armed timer per connection (`LazyDeadline`).
package final class RequestHeadDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = ByteBuffer
    package typealias InboundOut = ByteBuffer

    /// What the two handlers share; touched only on the channel's event loop.
    package final class HeadProgress {
        /// No head is being parsed or answered: the next bytes begin a head.
        package var awaitingHead = true
        /// Runs from the first byte of the awaited head until the head is complete.
        package let deadline: LazyDeadline

        package init(limit: TimeAmount) {
            deadline = LazyDeadline(limit: limit)
        }

        package func headCompleted() {
            awaitingHead = false
            deadline.clear()
        }
    }

    package let progress: HeadProgress

    package init(limit: TimeAmount) {
        self.progress = HeadProgress(limit: limit)
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if progress.awaitingHead, progress.deadline.started == nil { progress.deadline.start(context: context) }
        context.fireChannelRead(data)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        progress.deadline.stop()
        context.fireChannelInactive()
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        progress.deadline.stop()
    }
}
