import LatchkeyTransport
import Logging
import NIOConcurrencyHelpers

/// The rate limit of a cluster: several instances on one PostgreSQL draw from one token bucket per
/// client, kept in the database, so spreading requests over N instances does not buy N times the limit.
///
/// Why PostgreSQL and not a component beside it (Redis, the proxy's own limiter): it is already the one
/// thing every instance shares, it is what the deployment has to keep running anyway, and a proxy's
/// limiter is per proxy — the same N-fold gap one level up. The bucket is an UNLOGGED table (no
/// write-ahead log, no fsync).
///
/// Tokens are leased: a client that comes back for more within a lease's lifetime gets twice as many
/// at its next take (up to `maximumLease`), spent here without a round trip. A person signing in makes a
/// take per request, as before; a busy client costs the database one statement per many requests
/// (issue 16: two statements per login were a third of a login's cost on PostgreSQL). Leasing never
/// lets a client exceed the limit — every token spent here was taken from the shared bucket first — it
/// only errs the other way: tokens leased by one instance and not spent within `leaseLifetime` are
/// forfeited, so a client spreading over N instances may be refused up to N × `maximumLease` requests
/// early. `maximumLease` is a sixteenth of the limit, so a small limit (30 a minute: 1) is exact.
///
/// The instance's own limiter still runs first, with the same limit: a client it refuses is refused
/// without a database round trip (its share of the shared bucket cannot be larger than what it spent
/// here), which keeps a flood from one address off the database. When the database cannot answer, the
/// instance's limiter alone decides: the request goes on, and fails on its own if it needs the database.
final class SharedRateLimit: Sendable {
    let store: Store
    let perMinute: Int
    let logger: Logger
    let maximumLease: Int
    /// Seconds a lease's tokens stay spendable here.
    let leaseLifetime: Double
    private let clock: @Sendable () -> Double
    private let leases = NIOLockedValueBox<[RateLimitClient: Lease]>([:])
    private let takes = NIOLockedValueBox(0)
    /// Past this many clients, expired leases are dropped (and, if that is not enough, all of them:
    /// forgetting a lease only forfeits tokens).
    private static let maximumClients = 10_000

    private struct Lease {
        var tokens: Int
        /// What the last take asked for: the next one asks for twice as many.
        var size: Int
        var expires: Double
    }

    init(
        store: Store, perMinute: Int, logger: Logger, leaseLifetime: Double = 5,
        clock: @escaping @Sendable () -> Double = RateLimiter.monotonicSeconds
    ) {
        self.store = store
        self.perMinute = perMinute
        self.logger = logger
        self.maximumLease = max(1, min(64, perMinute / 16))
        self.leaseLifetime = leaseLifetime
        self.clock = clock
    }

    /// How many times this instance has gone to the database's bucket (tests).
    var databaseTakes: Int { takes.withLockedValue { $0 } }

    func admit(_ client: RateLimitClient) async -> RateLimiter.Decision {
        let now = clock()
        // Spend a leased token if there is one; otherwise decide how many to ask for.
        let wanted: Int? = leases.withLockedValue { leases in
            guard var lease = leases[client], lease.expires > now else { return 1 }
            guard lease.tokens == 0 else {
                lease.tokens -= 1
                leases[client] = lease
                return nil
            }
            return min(maximumLease, lease.size * 2)
        }
        guard let wanted else { return .allowed }
        takes.withLockedValue { $0 += 1 }
        do {
            let taken = try await store.rateLimits.take(client: client.bytes, perMinute: perMinute, wanted: wanted)
            guard taken.granted > 0 else {
                leases.withLockedValue { $0[client] = nil }
                return .limited(retryAfter: taken.retryAfter)
            }
            leases.withLockedValue { leases in
                if leases[client] == nil, leases.count >= Self.maximumClients {
                    leases = leases.filter { $0.value.expires > now }
                    if leases.count >= Self.maximumClients { leases = [:] }
                }
                // Concurrent takes for one client add up rather than forfeit each other's tokens.
                let left = leases[client].map { $0.expires > now ? $0.tokens : 0 } ?? 0
                leases[client] = Lease(tokens: left + taken.granted - 1, size: max(1, taken.granted), expires: now + leaseLifetime)
            }
            return .allowed
        } catch {
            logger.debug("shared rate limit unavailable; the instance's limit applies", metadata: ["error": "\(error)"])
            return .allowed
        }
    }
}

extension RateLimitClient {
    /// The bucket's key in the database: 4 bytes for an IPv4 address, 8 for an IPv6 /64 prefix.
    var bytes: [UInt8] {
        switch self {
        case .v4(let address): return withUnsafeBytes(of: address.bigEndian, Array.init)
        case .v6Prefix(let prefix): return withUnsafeBytes(of: prefix.bigEndian, Array.init)
        }
    }
}
