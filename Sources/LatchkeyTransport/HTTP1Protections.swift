import NIOCore
import NIOHTTP1

/// The handlers Latchkey adds to Hummingbird's HTTP/1.1 pipeline, in plain HTTP (`EventLoopPinnedChannel`)
/// and over TLS (`HTTPSChannel`) alike, all around NIO's request decoder: the JSON answer to a malformed
/// head, the body deadline, the connection's activity reports to the `ConnectionLimiter`, and the
/// first-byte-to-end-of-head deadline (which reads bytes before the decoder: decrypted ones over TLS).
package struct HTTP1Protections {
    package let connection: ConnectionLimiter.Connection?
    /// How long a request's body may take to arrive after its head (see `RequestDeadlineHandler`).
    package let bodyDeadline: TimeAmount?
    /// How long a request head may take to arrive after its first byte (see `RequestHeadDeadlineHandler`).
    package let headDeadline: TimeAmount?
    /// Whether the hand-written 400 for a malformed head carries HSTS (the connection is TLS).
    package var strictTransportSecurity = false

    /// Adds them to a pipeline Hummingbird's `HTTP1Channel` has set up; on the channel's event loop.
    package func add(to pipeline: ChannelPipeline.SynchronousOperations) throws {
        let decoder = try pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self)
        if let bodyDeadline {
            try pipeline.addHandler(RequestDeadlineHandler(limit: bodyDeadline), position: .after(decoder))
        }
        let headDeadlineHandler = headDeadline.map { RequestHeadDeadlineHandler(limit: $0) }
        if let headDeadlineHandler {
            try pipeline.addHandler(headDeadlineHandler, position: .before(decoder))
        }
        if connection != nil || headDeadlineHandler != nil {
            try pipeline.addHandler(
                ConnectionActivityHandler(connection: connection, head: headDeadlineHandler?.progress), position: .after(decoder))
        }
        try pipeline.addHandler(MalformedHeadHandler(strictTransportSecurity: strictTransportSecurity), position: .after(decoder))
    }
}
