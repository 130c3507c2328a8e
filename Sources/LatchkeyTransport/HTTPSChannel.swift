import HummingbirdCore
import HummingbirdHTTP2
import LatchkeyRuntime
import Logging
import NIOCore
import NIOHTTP2
import NIOSSL

/// `latchkey serve --tls-cert --tls-key`: HTTPS, with HTTP/2 or HTTP/1.1 as the client's ALPN chooses,
/// and the connection protections of the plain-HTTP server (`EventLoopPinnedChannel`) as far as each
/// protocol allows (docs/ARCHITECTURE.md §7 says which apply to HTTP/2).
///
/// Hummingbird's own `.http2Upgrade(tlsConfiguration:)` makes its TLS context once, when the server is
/// built; this channel reads the context from `ServerCertificate` for every accepted connection instead,
/// so that a certificate reloaded on SIGHUP is the one the next handshake presents. The HTTP/1.1 and
/// HTTP/2 halves are still Hummingbird's (`HTTP1Channel`, `HTTP2Channel`).
///
/// For each accepted connection, in order:
/// 1. the `ConnectionLimiter` counts it (or closes it), as in plain HTTP;
/// 2. `TLSHandshakeDeadlineHandler`, then swift-nio-ssl's handler with the current context;
/// 3. once ALPN has chosen, the handshake deadline goes, and either
///    - HTTP/1.1: Hummingbird's `HTTP1Channel` pipeline with `HTTP1Protections` (the same handlers as in
///      plain HTTP, on the decrypted bytes), or
///    - HTTP/2: a `HTTP2Channel` made for this connection, whose streams each get an
///      `HTTP2StreamActivityHandler` reporting to the connection's `HTTP2ConnectionActivity`.
///
/// Every request's work runs on the connection's event loop, as in `EventLoopPinnedChannel`.
package struct HTTPSChannel: ServerChildChannel {
    /// What HTTP/2 hands `handle`: the connection's own channel handler and its value.
    package struct HTTP2Connection: Sendable {
        package let handler: HTTP2Channel
        package let value: HTTP2Channel.Value
    }

    package struct Value: ServerChildChannelValue {
        package let negotiated: EventLoopFuture<NIONegotiatedHTTPVersion<HTTP1Channel.Value, HTTP2Connection>>
        package let channel: any Channel
    }

    /// How long an HTTP/2 connection that ignores the idle GOAWAY may stay open after it, and how long its
    /// streams have to finish when the server stops (see `HTTP2ConnectionActivity`).
    package static let http2ClosingGrace = TimeAmount.seconds(5)

    package let responder: HTTPChannelHandler.Responder
    package let certificate: ServerCertificate
    package let limiter: ConnectionLimiter?
    /// `ServerConfiguration.idleTimeAmount`: silence before a handshake, an idle HTTP/1.1 connection, an
    /// HTTP/2 connection without streams, and a body after its head.
    package let idleTimeout: TimeAmount?
    /// `ServerConfiguration.headTimeAmount`: a handshake, or an HTTP/1.1 head, from its first byte.
    package let headTimeout: TimeAmount?
    private let http1: HTTP1Channel

    package init(responder: @escaping HTTPChannelHandler.Responder, certificate: ServerCertificate, limiter: ConnectionLimiter?,
         idleTimeout: TimeAmount?, headTimeout: TimeAmount?) {
        self.responder = responder
        self.certificate = certificate
        self.limiter = limiter
        self.idleTimeout = idleTimeout
        self.headTimeout = headTimeout
        self.http1 = HTTP1Channel(responder: responder, configuration: .init(idleTimeout: idleTimeout))
    }

    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let connection: ConnectionLimiter.Connection?
        switch ConnectionLimiter.admit(channel, to: limiter, logger: logger) {
        case .success(let counted): connection = counted
        case .failure(let refused): return channel.eventLoop.makeFailedFuture(refused)
        }
        let handshakeDeadline = TLSHandshakeDeadlineHandler(silence: idleTimeout, handshake: headTimeout)
        do {
            let pipeline = channel.pipeline.syncOperations
            try pipeline.addHandler(handshakeDeadline)
            try pipeline.addHandler(NIOSSLServerHandler(context: certificate.context))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        let deadline = NIOLoopBound(handshakeDeadline, eventLoop: channel.eventLoop)
        let negotiated = channel.configureHTTP2AsyncSecureUpgrade { [http1, idleTimeout, headTimeout] channel in
            channel.pipeline.syncOperations.removeHandler(deadline.value, promise: nil)
            return http1.setup(channel: channel, logger: logger).flatMapThrowing { value in
                try HTTP1Protections(connection: connection, bodyDeadline: idleTimeout, headDeadline: headTimeout, strictTransportSecurity: true)
                    .add(to: channel.pipeline.syncOperations)
                return value
            }
        } http2ConnectionInitializer: { [responder, idleTimeout] channel in
            channel.pipeline.syncOperations.removeHandler(deadline.value, promise: nil)
            let activity = NIOLoopBound(
                HTTP2ConnectionActivity(
                    connection: connection, idleLimit: idleTimeout.map { $0 + Self.http2ClosingGrace }, closingGrace: Self.http2ClosingGrace),
                eventLoop: channel.eventLoop)
            let handler = HTTP2Channel(responder: responder, configuration: .init(
                idleTimeout: idleTimeout.map { .nanoseconds($0.nanoseconds) },
                gracefulCloseTimeout: .nanoseconds(Self.http2ClosingGrace.nanoseconds),
                // Called for each new stream, on this connection's event loop.
                streamConfiguration: .init(additionalChannelHandlers: [HTTP2StreamActivityHandler(connection: activity.value, bodyDeadline: idleTimeout)])))
            return handler.setup(channel: channel, logger: logger).flatMapThrowing { value in
                try channel.pipeline.syncOperations.addHandler(activity.value)
                return HTTP2Connection(handler: handler, value: value)
            }
        }
        return negotiated.map { Value(negotiated: $0, channel: channel) }
    }

    package func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            do {
                switch try await value.negotiated.get() {
                case .http1_1(let connection):
                    await http1.handle(value: connection, logger: logger)
                case .http2(let connection):
                    await connection.handler.handle(value: connection.value, logger: logger)
                }
            } catch {
                // The handshake failed or the client left before choosing a protocol; the channel is closed.
                logger.debug("TLS connection ended before its protocol was chosen", metadata: ["error": "\(error)"])
            }
        }
    }
}
