import NIOCore
import NIOHTTP1

/// Closes a connection whose request body has not fully arrived within `limit` of its head. The idle
/// time-out alone does not end a slow body: every byte of a body is a request part, so a client that
/// trickles one byte a second could hold a connection for as long as it likes (slowloris). A request
/// head sent slowly never becomes a part, and the idle time-out ends it.
///
/// One timer per connection, armed lazily: a request notes when its head came, and the timer, when it
/// fires, closes the connection if the body then being read is overdue, or re-arms itself for that
/// body's own deadline. Scheduling and cancelling a timer for every request cost about 2 µs of a
/// request's CPU (issue 16); a busy keep-alive connection now schedules about one per `limit`.
final class RequestDeadlineHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private let limit: TimeAmount
    /// When the head of the request whose body is still arriving came; nil between requests.
    private var headArrived: NIODeadline?
    private var timer: Scheduled<Void>?

    init(limit: TimeAmount) {
        self.limit = limit
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head:
            let now = context.eventLoop.now
            headArrived = now
            if timer == nil { arm(context: context, at: now + limit) }
        case .end:
            headArrived = nil
        case .body:
            break
        }
        context.fireChannelRead(data)
    }

    /// Runs on the channel's event loop, as every handler method does.
    private func arm(context: ChannelHandlerContext, at due: NIODeadline) {
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        let context = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer = context.value.eventLoop.scheduleTask(deadline: due) { handler.value.check(context: context.value) }
    }

    private func check(context: ChannelHandlerContext) {
        timer = nil
        guard let headArrived else { return }
        let due = headArrived + limit
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
        headArrived = nil
    }
}
