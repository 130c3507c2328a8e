import Foundation
import HTTPTypes
@testable import LatchkeyTransport
import NIOCore
import SoftAuthenticator
import Testing
import WebAuthn
@testable import LatchkeyServer

/// `ConnectionLimiter`: the per-client and total bounds, who makes room at the total bound, and the
/// configuration of the bounds and deadlines. The real binary gets the same shapes in Tests/System/Hostile.
@Suite("Connection limits and deadlines")
struct ConnectionLimiterTests {
    @Test("connections over the per-client bound are refused when accepted, and counted back when closed (SECURITY-FINDINGS.md, finding 8)")
    func connectionLimiter() throws {
        let limiter = ConnectionLimiter(total: 3, perClient: 2)
        let a = try SocketAddress(ipAddress: "203.0.113.7", port: 1000)
        let b = try SocketAddress(ipAddress: "203.0.113.8", port: 1000)
        let sameSubnet = try SocketAddress(ipAddress: "2001:db8:1:2::1", port: 1), neighbour = try SocketAddress(ipAddress: "2001:db8:1:2::99", port: 2)
        let first = try #require(Self.open(limiter, a))
        _ = try #require(Self.open(limiter, a))
        #expect(Self.open(limiter, a) == nil, "a third from one address")
        first.closed()
        first.closed()
        #expect(limiter.openConnections == 1, "a second close gives nothing back twice")
        _ = try #require(Self.open(limiter, a), "a's closed connection made room")
        _ = try #require(Self.open(limiter, b))

        let v6 = ConnectionLimiter(total: 100, perClient: 1)
        _ = try #require(Self.open(v6, sameSubnet))
        #expect(Self.open(v6, neighbour) == nil, "an IPv6 /64 is one client")
    }

    @Test("at the total bound the connection that waited longest without a request makes room; one answering a request never does (SECURITY-FINDINGS-3.md, finding 5)")
    func connectionLimiterEvictsTheLongestWaiting() throws {
        let closed = ClosedConnections()
        let limiter = ConnectionLimiter(total: 3, perClient: nil)
        let address = try SocketAddress(ipAddress: "203.0.113.7", port: 1)
        let idle = try #require(Self.open(limiter, address, closed, "idle"))
        let busy = try #require(Self.open(limiter, address, closed, "busy"))
        let halfSent = try #require(Self.open(limiter, address, closed, "half-sent"))
        busy.record(.answering)
        halfSent.record(.receiving)
        // idle has waited longest (opened first, nothing since): it goes, the newcomer stays.
        let newcomer = try #require(Self.open(limiter, address, closed, "newcomer"))
        #expect(closed.all == ["idle"])
        #expect(limiter.openConnections == 3)
        idle.closed() // its close arrives later: nothing is given back twice
        #expect(limiter.openConnections == 3)
        // Next in line: half-sent (receiving since before the newcomer came), not the busy one.
        newcomer.record(.answering)
        _ = try #require(Self.open(limiter, address, closed, "second newcomer"))
        #expect(closed.all == ["idle", "half-sent"])
        #expect(limiter.evictedConnections == 2)
        // Every slot answering a request: a newcomer is refused, nobody is closed.
        let full = ConnectionLimiter(total: 1, perClient: nil)
        let answering = try #require(Self.open(full, address, closed, "answering"))
        answering.record(.answering)
        #expect(Self.open(full, address) == nil)
        #expect(!closed.all.contains("answering"))
        answering.record(.waiting)
        _ = try #require(Self.open(full, address), "once answered, it waits like any other")
        #expect(closed.all.last == "answering")
    }

    @Test("idle time-out and connection bounds come from the configuration; nonsense is refused (SECURITY-FINDINGS.md, finding 8)")
    func connectionConfiguration() throws {
        var configuration = TestServer.configuration()
        #expect(configuration.idleTimeAmount == .seconds(30))
        #expect(configuration.connectionLimiter?.total == 4096)
        #expect(configuration.connectionLimiter?.perClient == 256)
        configuration.trustForwardedFor = true
        #expect(configuration.connectionLimiter?.perClient == nil, "behind a proxy every connection is the proxy's")
        #expect(configuration.headTimeAmount == .seconds(10))
        configuration.idleTimeout = 5
        #expect(configuration.headTimeAmount == .seconds(5), "never longer than the idle time-out")
        configuration.idleTimeout = 0
        configuration.maxConnections = 0
        configuration.maxConnectionsPerClient = 0
        #expect(configuration.idleTimeAmount == nil)
        #expect(configuration.connectionLimiter == nil)
        for bad in [-1.0, 3601] {
            configuration.idleTimeout = bad
            #expect(throws: ServerConfiguration.Invalid.self) { try configuration.validate() }
        }
    }
}

/// The names of the connections a `ConnectionLimiter` closed, in order.
final class ClosedConnections: @unchecked Sendable {
    private let lock = NSLock()
    private var names: [String] = []
    func add(_ name: String) {
        lock.lock()
        names.append(name)
        lock.unlock()
    }
    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return names
    }
}

extension ConnectionLimiterTests {
    /// A connection counted by `limiter`; its close is recorded in `closed` under `name`.
    static func open(_ limiter: ConnectionLimiter, _ address: SocketAddress, _ closed: ClosedConnections? = nil, _ name: String = "") -> ConnectionLimiter.Connection? {
        limiter.open(from: address, close: { closed?.add(name) })
    }
}
