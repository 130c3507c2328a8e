import Hummingbird
import HummingbirdCore
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
        guard let limiter else { return setUpPipeline(channel: channel, connection: nil, logger: logger) }
        guard let connection = limiter.open(from: channel.remoteAddress, close: { channel.close(promise: nil) }) else {
            logger.debug("connection refused: too many open connections", metadata: ["peer": "\(channel.remoteAddress.map { "\($0)" } ?? "?")"])
            // NIO's async server leaves a child whose set-up failed open (the failure is the set-up's to
            // handle), so the channel is closed here, or its socket would stay until the peer gives up.
            channel.close(promise: nil)
            return channel.eventLoop.makeFailedFuture(ConnectionLimitReached())
        }
        channel.closeFuture.whenComplete { _ in connection.closed() }
        return setUpPipeline(channel: channel, connection: connection, logger: logger)
    }

    /// Hummingbird's pipeline, with the JSON answer to a malformed head, the body deadline, and the
    /// connection's activity reports and first-head deadline right after the HTTP/1 request decoder.
    private func setUpPipeline(channel: any Channel, connection: ConnectionLimiter.Connection?, logger: Logger) -> EventLoopFuture<Value> {
        base.setup(channel: channel, logger: logger).flatMapThrowing { [bodyDeadline, headDeadline] value in
            // The set-up's future completes on the channel's event loop, where the pipeline may be
            // changed synchronously.
            let pipeline = channel.pipeline.syncOperations
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
            try pipeline.addHandler(MalformedHeadHandler(), position: .after(decoder))
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
    public static func latchkey(_ configuration: ServerConfiguration) -> HTTPServerBuilder {
        pinnedHTTP1(idleTimeout: configuration.idleTimeAmount, headTimeout: configuration.headTimeAmount, limiter: configuration.connectionLimiter)
    }
}

/// A Swift `TaskExecutor` that runs jobs on one NIO event loop: a job enqueued from the loop's own
/// thread is queued there without waking anything.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}

/// The servers' event-loop groups, one per thread count, made on first use and kept for the life of the
/// process like NIO's own singleton (tests start many servers; none of them owns its threads).
enum ServerEventLoops {
    private static let groups = NIOLockedValueBox<[Int: MultiThreadedEventLoopGroup]>([:])

    static func group(threads: Int) -> MultiThreadedEventLoopGroup {
        groups.withLockedValue { groups in
            if let group = groups[threads] { return group }
            let group = MultiThreadedEventLoopGroup(numberOfThreads: threads)
            groups[threads] = group
            return group
        }
    }
}
