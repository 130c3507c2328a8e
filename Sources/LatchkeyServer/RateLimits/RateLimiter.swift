import Foundation
import LatchkeyTransport
import NIOConcurrencyHelpers
import NIOCore

/// Token buckets per client: each client may make `capacity` requests at once, refilled at
/// `capacity` per minute. It bounds what one address can make the server do — every anonymous ceremony
/// start writes a row that lives for the challenge's lifetime — and how fast it can guess at anything.
///
/// The table of clients is bounded: when it fills, clients whose bucket has refilled completely are
/// forgotten (they are indistinguishable from new ones); if that frees too little — many addresses at
/// once — the half with the most tokens left goes. A limited client is the last to go (its bucket is
/// nearly empty), so flooding the table from many addresses (IPv6 /64s are cheap) cannot reset its
/// limit, as clearing the whole table once did; to push it out, each flooding address would have to
/// spend more of its own allowance than the limited client has left.
/// This table is per server instance; instances sharing a PostgreSQL database also count every request
/// in a shared bucket (`SharedRateLimit`).
final class RateLimiter: Sendable {
    enum Decision: Equatable, Sendable {
        case allowed
        /// Refused; a request is allowed again after this many whole seconds.
        case limited(retryAfter: Int)
    }

    private struct Bucket {
        var tokens: Double
        var updated: Double
    }

    let capacity: Double
    private let refillPerSecond: Double
    private let maximumClients: Int
    /// Seconds on a monotonic clock (injected by tests).
    private let clock: @Sendable () -> Double
    private let buckets = NIOLockedValueBox<[RateLimitClient: Bucket]>([:])

    init(requestsPerMinute: Int, maximumClients: Int = 100_000, clock: @escaping @Sendable () -> Double = RateLimiter.monotonicSeconds) {
        self.capacity = Double(max(requestsPerMinute, 1))
        self.refillPerSecond = Double(max(requestsPerMinute, 1)) / 60
        self.maximumClients = max(maximumClients, 1)
        self.clock = clock
    }

    func admit(_ client: RateLimitClient) -> Decision {
        let now = clock()
        return buckets.withLockedValue { buckets in
            var bucket = buckets[client] ?? Bucket(tokens: capacity, updated: now)
            bucket.tokens = min(capacity, bucket.tokens + max(0, now - bucket.updated) * refillPerSecond)
            bucket.updated = now
            let decision: Decision
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                decision = .allowed
            } else {
                decision = .limited(retryAfter: max(1, Int(((1 - bucket.tokens) / refillPerSecond).rounded(.up))))
            }
            if buckets[client] == nil, buckets.count >= maximumClients { forgetIdle(in: &buckets, now: now) }
            buckets[client] = bucket
            return decision
        }
    }

    /// How many clients the table holds (tests).
    var clientCount: Int { buckets.withLockedValue { $0.count } }

    private func forgetIdle(in buckets: inout [RateLimitClient: Bucket], now: Double) {
        buckets = buckets.filter { $0.value.tokens + (now - $0.value.updated) * refillPerSecond < capacity }
        guard buckets.count > maximumClients / 2 else { return }
        // Sorting is O(n log n), but it happens at most once per maximumClients / 2 new clients.
        func left(_ bucket: Bucket) -> Double { min(capacity, bucket.tokens + (now - bucket.updated) * refillPerSecond) }
        let keep = buckets.sorted { left($0.value) < left($1.value) }.prefix(maximumClients / 2)
        buckets = Dictionary(uniqueKeysWithValues: keep.map { ($0.key, $0.value) })
    }

    @Sendable static func monotonicSeconds() -> Double {
        let elapsed = ContinuousClock.now - origin
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    private static let origin = ContinuousClock.now
}
