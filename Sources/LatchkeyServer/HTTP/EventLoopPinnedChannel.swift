import Hummingbird
import HummingbirdCore
import LatchkeyRuntime
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// Hummingbird's HTTP/1.1 connection handling, with each connection's Swift tasks run on the event loop
/// that owns its socket. By default a connection's task runs on Swift's global pool: every request then
/// crosses threads twice (loop → pool to run the handler, pool → loop to write the response), and those
/// wake-ups were the largest cost of a login after the HTTP parsing itself. The handlers' work is short
/// (a signature check, a few SQLite statements on the calling thread), so keeping it on the loop delays
/// the loop's other connections by at most that long.
///
/// It is also where connections are counted: one over the `ConnectionLimiter`'s bounds is closed before
/// the HTTP pipeline is set up.
struct EventLoopPinnedChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value
    let base: Base
    let limiter: ConnectionLimiter?
    /// How long a request's body may take to arrive after its head (see `RequestDeadlineHandler`).
    var bodyDeadline: TimeAmount?
    /// How long a request head may take to arrive after its first byte (see `RequestHeadDeadlineHandler`).
    var headDeadline: TimeAmount?

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let connection: ConnectionLimiter.Connection?
        if let limiter {
            guard let counted = limiter.admit(channel, logger: logger) else { return channel.eventLoop.makeFailedFuture(ConnectionLimitReached()) }
            connection = counted
        } else {
            connection = nil
        }
        return base.setup(channel: channel, logger: logger).flatMapThrowing { [bodyDeadline, headDeadline] value in
            // The set-up's future completes on the channel's event loop, where the pipeline may be
            // changed synchronously.
            try HTTP1Protections(connection: connection, bodyDeadline: bodyDeadline, headDeadline: headDeadline).add(to: channel.pipeline.syncOperations)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await withTaskExecutorPreference(EventLoopTaskExecutor(value.channel.eventLoop)) {
            await base.handle(value: value, logger: logger)
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1.1 as `.http1()`, each connection pinned to its event loop (see `EventLoopPinnedChannel`),
    /// closed after `idleTimeout` without a complete request part (a request head sent byte by byte
    /// never completes one), when a head has not been completed within `headTimeout` of its first byte, or when a request's
    /// body has not arrived within `idleTimeout` of its head, and counted against `limiter`.
    static func pinnedHTTP1(idleTimeout: TimeAmount?, headTimeout: TimeAmount?, limiter: ConnectionLimiter?) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            EventLoopPinnedChannel(
                base: HTTP1Channel(responder: responder, configuration: .init(idleTimeout: idleTimeout)), limiter: limiter,
                bodyDeadline: idleTimeout, headDeadline: headTimeout)
        }
    }

    /// `latchkey serve`'s connection handling for an application that embeds Latchkey: idle, first-head
    /// and body deadlines and the connection bounds, all from `configuration` (`idleTimeout`,
    /// `headTimeout`, `maxConnections`, `maxConnectionsPerClient`, `trustForwardedFor`). Without it a
    /// host application has none of these protections (third review, finding 9):
    ///
    /// ```swift
    /// Application(router: router, server: .latchkey(configuration), configuration: …)
    /// ```
    ///
    /// With `tlsCertificateFile` and `tlsKeyFile` it serves HTTPS, HTTP/2 or HTTP/1.1 by ALPN
    /// (`HTTPSChannel`); the files are read when the server is built, and a mistake in them is the
    /// server's error then. (`latchkey serve` also reloads them on SIGHUP.)
    public static func latchkey(_ configuration: ServerConfiguration) -> HTTPServerBuilder {
        latchkey(configuration, certificate: nil)
    }

    /// As `latchkey(_:)`, presenting `certificate` (which `CertificateReloadService` may reload) when
    /// the configuration serves TLS; nil reads the configuration's files.
    static func latchkey(_ configuration: ServerConfiguration, certificate: ServerCertificate?) -> HTTPServerBuilder {
        guard configuration.servesTLS else {
            return pinnedHTTP1(idleTimeout: configuration.idleTimeAmount, headTimeout: configuration.headTimeAmount, limiter: configuration.connectionLimiter)
        }
        let limiter = configuration.connectionLimiter
        return HTTPServerBuilder { responder in
            guard let certificate = try certificate ?? ServerCertificate(configuration) else {
                throw ServerConfiguration.Invalid(description: "--tls-cert and --tls-key go together")
            }
            return HTTPSChannel(
                responder: responder, certificate: certificate, limiter: limiter,
                idleTimeout: configuration.idleTimeAmount, headTimeout: configuration.headTimeAmount)
        }
    }
}
