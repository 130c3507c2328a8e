import Logging

/// The rate limit of a cluster: several instances on one PostgreSQL draw from one token bucket per
/// client, kept in the database, so spreading requests over N instances does not buy N times the limit.
///
/// Why PostgreSQL and not a component beside it (Redis, the proxy's own limiter): it is already the one
/// thing every instance shares, it is what the deployment has to keep running anyway, and a proxy's
/// limiter is per proxy — the same N-fold gap one level up. The cost is one short statement per API
/// request, on an UNLOGGED table (no write-ahead log, no fsync).
///
/// The instance's own limiter still runs first, with the same limit: a client it refuses is refused
/// without a database round trip (its share of the shared bucket cannot be larger than what it spent
/// here), which keeps a flood from one address off the database. When the database cannot answer, the
/// instance's limiter alone decides: the request goes on, and fails on its own if it needs the database.
struct SharedRateLimit: Sendable {
    let store: Store
    let perMinute: Int
    let logger: Logger

    func admit(_ client: RateLimitClient) async -> RateLimiter.Decision {
        do {
            return try await store.admitRequest(client: client.bytes, perMinute: perMinute)
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
