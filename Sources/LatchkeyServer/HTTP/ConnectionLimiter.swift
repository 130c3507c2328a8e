import NIOConcurrencyHelpers
import NIOCore

/// Bounds the open connections: in all, and per client address (an IPv6 /64 counting as one, as for the
/// rate limiter). Each open connection holds a socket, buffers and a task; without a bound 3 000
/// half-sent requests from one client were held open and kept their memory. A connection over either
/// bound is closed as soon as it is accepted, before anything is read from it.
///
/// Behind a reverse proxy every connection comes from the proxy, so the per-address bound is left to
/// the proxy (`perClient` nil) and only the total applies.
final class ConnectionLimiter: Sendable {
    let total: Int
    let perClient: Int?
    private let state = NIOLockedValueBox(State())

    private struct State {
        var open = 0
        var byClient: [RateLimitClient: Int] = [:]
    }

    init(total: Int, perClient: Int?) {
        self.total = max(total, 1)
        self.perClient = perClient.map { max($0, 1) }
    }

    /// Counts a new connection from `address` if it fits, and returns what to call when it closes; nil
    /// means it does not fit and must be closed.
    func open(from address: SocketAddress?) -> (@Sendable () -> Void)? {
        let client = perClient == nil ? nil : address.flatMap(RateLimitClient.init)
        let admitted = state.withLockedValue { state -> Bool in
            guard state.open < total else { return false }
            if let client, let perClient {
                let current = state.byClient[client, default: 0]
                guard current < perClient else { return false }
                state.byClient[client] = current + 1
            }
            state.open += 1
            return true
        }
        guard admitted else { return nil }
        return { [state] in
            state.withLockedValue { state in
                state.open -= 1
                if let client, let count = state.byClient[client] {
                    state.byClient[client] = count > 1 ? count - 1 : nil
                }
            }
        }
    }

    /// Open connections now (tests, metrics).
    var openConnections: Int { state.withLockedValue { $0.open } }
}

/// Why a connection was closed at once.
struct ConnectionLimitReached: Error {}
