import NIOCore
import NIOHTTP2

/// An HTTP/2 connection's share of the protections an HTTP/1.1 connection gets from
/// `ConnectionActivityHandler` and the idle time-out, kept on the connection's own channel while its
/// streams (`HTTP2StreamActivityHandler`, one per request) tell it what they are doing.
///
/// - The `ConnectionLimiter` hears `answering` while any stream's request is complete and not yet answered,
///   `receiving` while a stream's body is still arriving, and `waiting` otherwise, so at the connection
///   bound an HTTP/2 connection that only holds streams open without finishing them makes room first, as a
///   half-sent HTTP/1.1 request does.
/// - Idle: with no stream open for `idleLimit` the connection is closed. Hummingbird's
///   `HTTP2ServerConnectionManager` sends GOAWAY at the idle time-out but then waits for the client to
///   answer its PING before closing, which a client that never answers would make forever; this is the
///   hard stop a little later (`HTTPSChannel` gives the manager the idle time-out, this the same plus a grace).
/// - Stopping: when the server stops (`ChannelShouldQuiesceEvent`) the manager sends GOAWAY and PING and
///   again waits for the PING's answer, so a client that never answers held the server's stop for the idle
///   time-out and more. The connection's streams get `closingGrace` to finish; then it is closed.
///
/// Streams live on the connection's event loop, so this is only touched there.
package final class HTTP2ConnectionActivity: ChannelInboundHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTP2Frame
    package typealias InboundOut = HTTP2Frame

    /// What one stream is doing, as its handler reports it.
    package enum StreamState {
        /// The request's head came; its body has not ended.
        case receiving
        /// The request is complete; its response has not ended.
        case answering
        /// Answered (or reset): nothing more to count until the stream closes.
        case finished
    }

    private let connection: ConnectionLimiter.Connection?
    private let idle: LazyDeadline?
    private let closingGrace: TimeAmount
    private var closing: Scheduled<Void>?
    private var context: ChannelHandlerContext?
    private var streams = 0
    private var receiving = 0
    private var answering = 0

    package init(connection: ConnectionLimiter.Connection?, idleLimit: TimeAmount?, closingGrace: TimeAmount) {
        self.connection = connection
        self.idle = idleLimit.map { LazyDeadline(limit: $0) }
        self.closingGrace = closingGrace
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        if streams == 0 { idle?.start(context: context) }
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        idle?.stop()
        closing?.cancel()
        self.context = nil
    }

    package func channelInactive(context: ChannelHandlerContext) {
        idle?.stop()
        closing?.cancel()
        context.fireChannelInactive()
    }

    package func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelShouldQuiesceEvent, closing == nil {
            let channel = context.channel
            closing = context.eventLoop.scheduleTask(in: closingGrace) { channel.close(promise: nil) }
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// A stream opened (its request's head has come).
    package func streamOpened() {
        streams += 1
        receiving += 1
        idle?.clear()
        report()
    }

    /// A stream moved from one state to another.
    package func stream(from old: StreamState, to new: StreamState) {
        adjust(old, by: -1)
        adjust(new, by: 1)
        report()
    }

    /// A stream closed in `state`.
    package func streamClosed(in state: StreamState) {
        adjust(state, by: -1)
        streams -= 1
        if streams == 0, let context { idle?.start(context: context) }
        report()
    }

    private func adjust(_ state: StreamState, by change: Int) {
        switch state {
        case .receiving: receiving += change
        case .answering: answering += change
        case .finished: break
        }
    }

    private func report() {
        connection?.record(answering > 0 ? .answering : receiving > 0 ? .receiving : .waiting)
    }
}
