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
/// awaited. One timer per connection, armed lazily as `RequestDeadlineHandler`'s is.
final class RequestHeadDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// What the two handlers share; touched only on the channel's event loop.
    final class HeadProgress {
        /// No head is being parsed or answered: the next bytes begin a head.
        var awaitingHead = true
        /// When the first byte of the awaited head came; nil before it has.
        var firstByte: NIODeadline?

        func headCompleted() {
            awaitingHead = false
            firstByte = nil
        }
    }

    let progress = HeadProgress()
    private let limit: TimeAmount
    private var timer: Scheduled<Void>?

    init(limit: TimeAmount) {
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if progress.awaitingHead, progress.firstByte == nil {
            let now = context.eventLoop.now
            progress.firstByte = now
            if timer == nil { arm(context: context, at: now + limit) }
        }
        context.fireChannelRead(data)
    }

    private func arm(context: ChannelHandlerContext, at due: NIODeadline) {
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let context = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.value.eventLoop.scheduleTask(deadline: due) { handler.value.check(context: context.value) }
    }

    private func check(context: ChannelHandlerContext) {
        timer = nil
        guard progress.awaitingHead, let firstByte = progress.firstByte else { return }
        let due = firstByte + limit
        if due <= context.eventLoop.now {
            context.channel.close(promise: nil)
        } else {
            arm(context: context, at: due)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        stop()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        stop()
    }

    private func stop() {
        timer?.cancel()
        timer = nil
    }
}
