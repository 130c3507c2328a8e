import NIOCore
import NIOHTTPTypes

/// One HTTP/2 stream (one request) in `HTTPSChannel`'s pipeline, right after Hummingbird's HTTP/2-frames-to-
/// request-parts codec: it tells its connection (`HTTP2ConnectionActivity`) when the stream opens, when its
/// request is complete, when it is answered and when it closes; and, as `RequestDeadlineHandler` does for
/// HTTP/1.1, it resets the stream (closing its channel sends RST_STREAM) when the request's body has not
/// ended within `bodyDeadline` of its head. Over HTTP/2 a slow body holds one stream, not the connection,
/// and NIOHTTP2 bounds the streams a connection may hold open at once (100).
package final class HTTP2StreamActivityHandler: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPRequestPart
    package typealias InboundOut = HTTPRequestPart
    package typealias OutboundIn = HTTPResponsePart
    package typealias OutboundOut = HTTPResponsePart

    private let connection: HTTP2ConnectionActivity
    private let deadline: LazyDeadline?
    /// Nil until the stream has been counted, and again once its close has been.
    private var state: HTTP2ConnectionActivity.StreamState?

    package init(connection: HTTP2ConnectionActivity, bodyDeadline: TimeAmount?) {
        self.connection = connection
        self.deadline = bodyDeadline.map { LazyDeadline(limit: $0) }
    }

    package func handlerAdded(context: ChannelHandlerContext) {
        // A stream's channel is made when its HEADERS frame has arrived: the head is here.
        state = .receiving
        connection.streamOpened()
        deadline?.start(context: context)
    }

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .end = unwrapInboundIn(data) {
            deadline?.clear()
            // An answer may have ended before the request did (a refusal while the body still came).
            if state == .receiving { move(to: .answering) }
        }
        context.fireChannelRead(data)
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { move(to: .finished) }
        context.write(data, promise: promise)
    }

    package func channelInactive(context: ChannelHandlerContext) {
        close()
        context.fireChannelInactive()
    }

    package func handlerRemoved(context: ChannelHandlerContext) {
        close()
    }

    private func move(to new: HTTP2ConnectionActivity.StreamState) {
        guard let old = state, old != new else { return }
        state = new
        connection.stream(from: old, to: new)
    }

    private func close() {
        deadline?.stop()
        guard let old = state else { return }
        state = nil
        connection.streamClosed(in: old)
    }
}
