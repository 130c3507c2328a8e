import Foundation
import HTTPTypes
@testable import LatchkeyTransport
import NIOCore
import SoftAuthenticator
import Testing
import WebAuthn
@testable import LatchkeyServer

/// The rate limit holds however a path is spelled, and a flood of addresses does not reset it.
@Suite("The rate limit on every spelling of a path, and its table under a flood")
struct RateLimitRoutingTests {
    @Test("//api/… and /api//… reach the API routes and are rate limited with them (SECURITY-FINDINGS.md, finding 7)", arguments: ["//api/login/options", "/api//login/options", "/api/login//options"])
    func limiterBypass(path: String) async throws {
        try await TestServer.run(TestServer.configuration { $0.rateLimit = 3 }, over: .live) { client in
            // The odd spelling reaches the route (the router ignores empty segments) …
            #expect(try await client.send(.post, path).status == .ok)
            #expect(try await client.send(.post, "/api/login/options").status == .ok)
            #expect(try await client.send(.post, "/api/login/options").status == .ok)
            // … and counts against the same bucket: the fourth request is refused whatever its spelling.
            let refused = try await client.send(.post, path)
            #expect(refused.status == .tooManyRequests)
            #expect(refused.errorCode == "rate_limited")
        }
    }

    @Test("flooding the rate limiter's table from many addresses does not reset a limited client (SECURITY-FINDINGS.md, finding 11)")
    func limiterFlood() throws {
        let clock = RateLimitTests.ManualClock()
        let limiter = RateLimiter(requestsPerMinute: 10, maximumClients: 100, clock: clock.read)
        let attacker = try #require(RateLimitClient(text: "198.51.100.1"))
        for _ in 0..<10 { _ = limiter.admit(attacker) }
        #expect(limiter.admit(attacker) != .allowed)
        for index in 0..<10_000 {
            _ = limiter.admit(.v6Prefix(UInt64(index) << 16))
        }
        #expect(limiter.clientCount <= 100)
        #expect(limiter.admit(attacker) != .allowed, "still limited after 10 000 other addresses")
    }
}
