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
final class RequestHeadDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// What the two handlers share; touched only on the channel's event loop.
    final class HeadProgress {
        /// No head is being parsed or answered: the next bytes begin a head.
        var awaitingHead = true
        /// Runs from the first byte of the awaited head until the head is complete.
        let deadline: LazyDeadline

        init(limit: TimeAmount) {
            deadline = LazyDeadline(limit: limit)
        }

        func headCompleted() {
            awaitingHead = false
            deadline.clear()
        }
    }

    let progress: HeadProgress

    init(limit: TimeAmount) {
        self.progress = HeadProgress(limit: limit)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if progress.awaitingHead, progress.deadline.started == nil { progress.deadline.start(context: context) }
        context.fireChannelRead(data)
    }

    func channelInactive(context: ChannelHandlerContext) {
        progress.deadline.stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        progress.deadline.stop()
    }
}
