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
package struct EventLoopPinnedChannel<Base: ServerChildChannel>: ServerChildChannel {
    package typealias Value = Base.Value
    package let base: Base
    package let limiter: ConnectionLimiter?
    /// How long a request's body may take to arrive after its head (see `RequestDeadlineHandler`).
    package var bodyDeadline: TimeAmount?
    /// How long a request head may take to arrive after its first byte (see `RequestHeadDeadlineHandler`).
    package var headDeadline: TimeAmount?

    package func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let connection: ConnectionLimiter.Connection?
        switch ConnectionLimiter.admit(channel, to: limiter, logger: logger) {
        case .success(let counted): connection = counted
        case .failure(let refused): return channel.eventLoop.makeFailedFuture(refused)
        }
        return base.setup(channel: channel, logger: logger).flatMapThrowing { [bodyDeadline, headDeadline] value in
            // The set-up's future completes on the channel's event loop, where the pipeline may be
            // changed synchronously.
            try HTTP1Protections(connection: connection, bodyDeadline: bodyDeadline, headDeadline: headDeadline).add(to: channel.pipeline.syncOperations)
            return value
        }
    }

    package func handle(value: Value, logger: Logger) async {
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
    package static func pinnedHTTP1(idleTimeout: TimeAmount?, headTimeout: TimeAmount?, limiter: ConnectionLimiter?) -> HTTPServerBuilder {
        HTTPServerBuilder { responder in
            EventLoopPinnedChannel(
                base: HTTP1Channel(responder: responder, configuration: .init(idleTimeout: idleTimeout)), limiter: limiter,
                bodyDeadline: idleTimeout, headDeadline: headTimeout)
        }
    }
}
