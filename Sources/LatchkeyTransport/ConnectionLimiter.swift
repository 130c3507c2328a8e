import Logging
import NIOConcurrencyHelpers
import NIOCore

/// Bounds the open connections: in all, and per client address (an IPv6 /64 counting as one, as for the
/// rate limiter). Each open connection holds a socket, buffers and a task; without a bound 3 000
/// half-sent requests from one client were held open and kept their memory.
///
/// Over the per-client bound a new connection is closed as soon as it is accepted. At the total bound,
/// refusing the newcomer would let anyone with a few addresses lock everyone out: 16 addresses × 256
/// half-sent heads held every slot of the defaults until the idle time-out, and renewed them (third
/// review, finding 5). So at the total bound the newcomer takes the slot of the connection that has
/// waited longest without doing anything useful — waiting for a request head (a half-sent head looks
/// the same) or for the rest of a body — and that connection is closed. A connection whose request is
/// complete and being answered is never chosen; only when every connection is busy is the newcomer
/// refused. A slow attacker's connections are therefore the ones that go, and a client that sends its
/// request at once is served.
///
/// Behind a reverse proxy every connection comes from the proxy, so the per-address bound is left to
/// the proxy (`perClient` nil) and only the total applies.
package final class ConnectionLimiter: Sendable {
    package let total: Int
    package let perClient: Int?
    private let state = NIOLockedValueBox(State())

    /// What a connection is doing, for choosing which one makes room.
    package enum Activity: Sendable, Equatable {
        /// Accepted, or between requests: waiting for a head (possibly half-sent).
        case waiting
        /// A head came; the body is still arriving.
        case receiving
        /// The request is complete and being answered: never closed to make room.
        case answering
    }

    private struct Entry {
        let client: RateLimitClient?
        var activity: Activity
        /// When the connection last made progress, as a tick of `State.clock`: the smallest is the one
        /// that has waited longest.
        var since: UInt64
        let close: @Sendable () -> Void

        mutating func record(_ activity: Activity, since: UInt64) {
            self.activity = activity
            self.since = since
        }
    }

    private struct State {
        var entries: [UInt64: Entry] = [:]
        var byClient: [RateLimitClient: Int] = [:]
        var nextID: UInt64 = 0
        /// Counts state changes; orders connections by their last progress without reading a clock.
        var clock: UInt64 = 0
        var evicted = 0

        mutating func tick() -> UInt64 {
            clock &+= 1
            return clock
        }

        mutating func remove(_ id: UInt64) -> Entry? {
            guard let entry = entries.removeValue(forKey: id) else { return nil }
            if let client = entry.client, let count = byClient[client] {
                byClient[client] = count > 1 ? count - 1 : nil
            }
            return entry
        }

        /// The connection that has waited longest while not answering a request.
        func longestWaiting() -> UInt64? {
            var found: (id: UInt64, since: UInt64)?
            for (id, entry) in entries where entry.activity != .answering {
                if let current = found, current.since <= entry.since { continue }
                found = (id, entry.since)
            }
            return found?.id
        }
    }

    package init(total: Int, perClient: Int?) {
        self.total = max(total, 1)
        self.perClient = perClient.map { max($0, 1) }
    }

    /// Counts a new connection from `address` if it fits, closing (with its `close`) the connection that
    /// has waited longest when the total is reached; nil means it does not fit and must be closed.
    /// `close` is how this limiter closes the new connection should it later have to make room.
    package func open(from address: SocketAddress?, close: @escaping @Sendable () -> Void) -> Connection? {
        let client = perClient == nil ? nil : address.flatMap(RateLimitClient.init)
        let outcome = state.withLockedValue { state -> (id: UInt64, evicted: Entry?)? in
            if let client, let perClient, state.byClient[client, default: 0] >= perClient { return nil }
            var evicted: Entry?
            if state.entries.count >= total {
                guard let victim = state.longestWaiting() else { return nil }
                evicted = state.remove(victim)
                state.evicted += 1
            }
            if let client { state.byClient[client, default: 0] += 1 }
            let id = state.nextID
            state.nextID &+= 1
            state.entries[id] = Entry(client: client, activity: .waiting, since: state.tick(), close: close)
            return (id, evicted)
        }
        guard let outcome else { return nil }
        outcome.evicted?.close()
        return Connection(limiter: self, id: outcome.id)
    }

    fileprivate func record(_ activity: Activity, of id: UInt64) {
        state.withLockedValue { state in
            // One look-up, in place (a closed connection's id finds nothing and changes nothing).
            let since = state.tick()
            state.entries[id]?.record(activity, since: since)
        }
    }

    fileprivate func release(_ id: UInt64) {
        _ = state.withLockedValue { $0.remove(id) }
    }

    /// Counts an accepted `channel`, whose close then gives the slot back; nil when it does not fit, and
    /// the channel is then closed here. NIO's async server leaves a child whose set-up failed open (the
    /// failure is the set-up's to handle), so the channel is closed at once, or its socket would stay
    /// until the peer gives up.
    package func admit(_ channel: any Channel, logger: Logger) -> Connection? {
        guard let connection = open(from: channel.remoteAddress, close: { channel.close(promise: nil) }) else {
            logger.debug("connection refused: too many open connections", metadata: ["peer": "\(channel.remoteAddress.map { "\($0)" } ?? "?")"])
            channel.close(promise: nil)
            return nil
        }
        channel.closeFuture.whenComplete { _ in connection.closed() }
        return connection
    }

    /// The accepted channel's connection, counted by `limiter` (nil: no limits, nothing counted), or the
    /// failure that ends its set-up when the limiter closed it: the one admission both channels make, plain
    /// HTTP/1.1 (`EventLoopPinnedChannel`) and TLS (`HTTPSChannel`).
    package static func admit(_ channel: any Channel, to limiter: ConnectionLimiter?, logger: Logger) -> Result<Connection?, ConnectionLimitReached> {
        guard let limiter else { return .success(nil) }
        guard let counted = limiter.admit(channel, logger: logger) else { return .failure(ConnectionLimitReached()) }
        return .success(counted)
    }

    /// Open connections now (tests, metrics).
    package var openConnections: Int { state.withLockedValue { $0.entries.count } }

    /// Connections closed so far to make room for newer ones.
    package var evictedConnections: Int { state.withLockedValue { $0.evicted } }

    /// One counted connection: its handler reports what it is doing, and its close gives the slot back
    /// (a second close, or one after it was closed to make room, changes nothing).
    package final class Connection: Sendable {
        private let limiter: ConnectionLimiter
        private let id: UInt64

        fileprivate init(limiter: ConnectionLimiter, id: UInt64) {
            self.limiter = limiter
            self.id = id
        }

        package func record(_ activity: Activity) { limiter.record(activity, of: id) }
        package func closed() { limiter.release(id) }
    }
}

/// Why a connection was closed at once.
package struct ConnectionLimitReached: Error {}
