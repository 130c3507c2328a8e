import Foundation
import HTTPTypes
import Hummingbird
@testable import LatchkeyTransport
import NIOConcurrencyHelpers
import NIOCore
import Testing
@testable import LatchkeyServer

@Suite("Rate limiting")
struct RateLimitTests {
    /// A clock the test moves by hand.
    final class ManualClock: Sendable {
        private let seconds = NIOLockedValueBox<Double>(1000)
        func advance(_ by: Double) { seconds.withLockedValue { $0 += by } }
        var read: @Sendable () -> Double { { [seconds] in seconds.withLockedValue { $0 } } }
    }

    static func client(_ text: String) throws -> RateLimitClient {
        try #require(RateLimitClient(text: text))
    }

    @Test("a burst of the per-minute allowance, then refusals that say when to come back; the bucket refills")
    func bucket() throws {
        let clock = ManualClock()
        let limiter = RateLimiter(requestsPerMinute: 6, clock: clock.read)
        let ada = try Self.client("203.0.113.7")
        for _ in 0..<6 { #expect(limiter.admit(ada) == .allowed) }
        // Six a minute refill one token every ten seconds.
        #expect(limiter.admit(ada) == .limited(retryAfter: 10))
        clock.advance(4)
        #expect(limiter.admit(ada) == .limited(retryAfter: 6))
        clock.advance(6)
        #expect(limiter.admit(ada) == .allowed)
        #expect(limiter.admit(ada) == .limited(retryAfter: 10))
        // A long pause refills the bucket to its capacity, not beyond.
        clock.advance(3600)
        for _ in 0..<6 { #expect(limiter.admit(ada) == .allowed) }
        #expect(limiter.admit(ada) == .limited(retryAfter: 10))
    }

    @Test("clients are counted apart; an IPv6 /64 is one client; IPv4-mapped IPv6 is the IPv4 address")
    func clients() throws {
        let limiter = RateLimiter(requestsPerMinute: 1, clock: ManualClock().read)
        #expect(limiter.admit(try Self.client("203.0.113.7")) == .allowed)
        #expect(limiter.admit(try Self.client("203.0.113.8")) == .allowed)
        #expect(limiter.admit(try Self.client("::ffff:203.0.113.7")) == .limited(retryAfter: 60))
        #expect(limiter.admit(try Self.client("2001:db8:1:2::1")) == .allowed)
        #expect(limiter.admit(try Self.client("[2001:db8:1:2:ffff::9]")) == .limited(retryAfter: 60))
        #expect(limiter.admit(try Self.client(" 2001:db8:1:3::1 ")) == .allowed)
        #expect(RateLimitClient(text: "not an address") == nil)
        #expect(RateLimitClient(text: "203.0.113.7:443") == nil)
        #expect(RateLimitClient(text: "") == nil)
        #expect(RateLimitClient(try SocketAddress(unixDomainSocketPath: "/tmp/x.sock")) == nil)
    }

    @Test("the table of clients stays bounded, forgetting idle clients first")
    func bounded() throws {
        let clock = ManualClock()
        let limiter = RateLimiter(requestsPerMinute: 60, maximumClients: 10, clock: clock.read)
        let busy = try Self.client("198.51.100.1")
        for _ in 0..<60 { _ = limiter.admit(busy) }
        for index in 0..<8 { _ = limiter.admit(try Self.client("192.0.2.\(index)")) }
        clock.advance(61) // the eight have refilled; the busy one (60 spent) too — so let it spend again
        for _ in 0..<60 { _ = limiter.admit(busy) }
        _ = limiter.admit(try Self.client("192.0.2.100")) // ten clients: the table is full
        _ = limiter.admit(try Self.client("192.0.2.101")) // forgets the idle ones, keeps the busy one
        #expect(limiter.clientCount <= 10)
        #expect(limiter.admit(busy) == .limited(retryAfter: 1))
        for index in 0..<1000 { _ = limiter.admit(.v4(UInt32(index))) }
        #expect(limiter.clientCount <= 10)
    }

    @Test("over real connections: the API answers 429 rate_limited with Retry-After; the page and /healthz are not counted")
    func overHTTP() async throws {
        try await TestServer.run(TestServer.configuration { $0.rateLimit = 5 }, over: .live) { client in
            for _ in 0..<5 {
                #expect(try await client.send(.post, "/api/login/options").status == .ok)
            }
            let refused = try await client.send(.post, "/api/login/options")
            #expect(refused.status == .tooManyRequests)
            #expect(refused.errorCode == "rate_limited")
            // Five a minute: one more every 12 s, less the time the five requests took.
            let retryAfter = try #require(refused.headers[.retryAfter].flatMap { Int($0) })
            #expect((1...12).contains(retryAfter))
            #expect(try await client.send(.get, "/api/account").status == .tooManyRequests)
            #expect(try await client.send(.get, "/healthz").status == .ok)
            #expect(try await client.send(.get, "/").status == .ok)
            let metrics = try await client.send(.get, "/metrics").text
            #expect(metrics.contains("latchkey_rate_limited_total 2"), "\(metrics)")
        }
    }

    @Test("behind a trusted proxy the last X-Forwarded-For address is the client; untrusted, the header is ignored")
    func forwardedFor() async throws {
        let header = try #require(HTTPField.Name("X-Forwarded-For"))
        try await TestServer.run(TestServer.configuration { $0.rateLimit = 1; $0.trustForwardedFor = true }, over: .live) { client in
            var statuses: [HTTPResponse.Status] = []
            // The last two: what the client claimed first does not count; the proxy's entry (the last) does.
            for forwarded in ["198.51.100.1", "198.51.100.2", "192.0.2.50, 198.51.100.1", "198.51.100.3, 192.0.2.50"] {
                statuses.append(try await client.send(.post, "/api/login/options", headers: [header: forwarded]).status)
            }
            #expect(statuses == [.ok, .ok, .tooManyRequests, .ok])
        }
        try await TestServer.run(TestServer.configuration { $0.rateLimit = 1 }, over: .live) { client in
            var statuses: [HTTPResponse.Status] = []
            for forwarded in ["198.51.100.1", "198.51.100.2"] {
                statuses.append(try await client.send(.post, "/api/login/options", headers: [header: forwarded]).status)
            }
            #expect(statuses == [.ok, .tooManyRequests])
        }
    }

    @Test("rate limit 0 turns the limiter off")
    func off() async throws {
        try await TestServer.run(TestServer.configuration { $0.rateLimit = 0 }, over: .live) { client in
            for _ in 0..<700 {
                try #require(try await client.send(.get, "/api/account").status == .unauthorized)
            }
        }
    }
}
