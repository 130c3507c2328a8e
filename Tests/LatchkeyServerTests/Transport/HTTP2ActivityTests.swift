import HTTPTypes
@testable import LatchkeyTransport
import NIOCore
import NIOEmbedded
import NIOHTTPTypes
import Testing
@testable import LatchkeyServer

/// An HTTP/2 connection's protections (`HTTP2ConnectionActivity` on the connection, an
/// `HTTP2StreamActivityHandler` per stream): what the connection limiter hears, the idle close, and the
/// per-stream body deadline. Streams share their connection's event loop, as in NIOHTTP2. Tests/System/Operations
/// runs the real server (test_tls.py).
@Suite("HTTP/2 connection activity and deadlines")
struct HTTP2ActivityTests {
    /// A connection on `loop`, counted by `limiter` (its close is recorded in `closed` as "h2"), with its
    /// activity handler.
    static func connection(
        on loop: EmbeddedEventLoop, limiter: ConnectionLimiter? = nil, closed: ClosedConnections? = nil, idle: TimeAmount? = .seconds(30)
    ) throws -> (EmbeddedChannel, HTTP2ConnectionActivity) {
        var counted: ConnectionLimiter.Connection?
        if let limiter {
            let address = try SocketAddress(ipAddress: "203.0.113.7", port: 1)
            counted = limiter.open(from: address, close: { closed?.add("h2") })
            #expect(counted != nil, "the connection is counted")
        }
        let activity = HTTP2ConnectionActivity(connection: counted, idleLimit: idle, closingGrace: .seconds(5))
        let channel = EmbeddedChannel(loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "203.0.113.7", port: 1)).wait()
        try channel.pipeline.syncOperations.addHandler(activity)
        return (channel, activity)
    }

    /// A stream of `activity`'s connection whose request head has come (NIOHTTP2 makes a stream's channel
    /// when its HEADERS frame arrives).
    static func stream(on loop: EmbeddedEventLoop, of activity: HTTP2ConnectionActivity, bodyDeadline: TimeAmount? = .seconds(10)) throws -> EmbeddedChannel {
        let stream = EmbeddedChannel(handler: HTTP2StreamActivityHandler(connection: activity, bodyDeadline: bodyDeadline), loop: loop)
        try stream.connect(to: SocketAddress(ipAddress: "203.0.113.7", port: 1)).wait()
        try stream.writeInbound(HTTPRequestPart.head(HTTPRequest(method: .post, scheme: "https", authority: "localhost", path: "/api/login/verify")))
        return stream
    }

    /// Found in the browser stage: Chromium kept an HTTP/2 connection (and a pre-connected socket) open and
    /// `latchkey serve --tls-cert` took over 30 s to stop after SIGTERM; Tests/System/Operations times the stop.
    @Test("when the server stops, an HTTP/2 connection whose client ignores GOAWAY is closed after the grace")
    func stoppingClosesAfterTheGrace() throws {
        let loop = EmbeddedEventLoop()
        let (channel, _) = try Self.connection(on: loop, idle: .seconds(30))
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        loop.advanceTime(by: .seconds(4))
        #expect(channel.isActive, "streams have the grace to finish")
        loop.advanceTime(by: .seconds(1))
        #expect(!channel.isActive, "closed at the grace, not at the idle time-out")
    }

    @Test("when the server stops, a TLS connection that has not chosen its protocol yet is closed at once")
    func stoppingClosesAnUnnegotiatedConnection() throws {
        let loop = EmbeddedEventLoop()
        let channel = EmbeddedChannel(handler: TLSHandshakeDeadlineHandler(silence: .seconds(30), handshake: .seconds(10)), loop: loop)
        try channel.connect(to: SocketAddress(ipAddress: "203.0.113.7", port: 1)).wait()
        loop.advanceTime(by: .seconds(1))
        #expect(channel.isActive)
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        loop.run()
        #expect(!channel.isActive)
    }

    @Test("the limiter hears answering while a stream's request is answered, so a newcomer is refused; once answered, the connection makes room again")
    func limiterHearsTheStreams() throws {
        let loop = EmbeddedEventLoop()
        let closed = ClosedConnections()
        let limiter = ConnectionLimiter(total: 1, perClient: nil)
        let newcomer = try SocketAddress(ipAddress: "203.0.113.8", port: 2)
        let (_, activity) = try Self.connection(on: loop, limiter: limiter, closed: closed)
        let stream = try Self.stream(on: loop, of: activity)
        try stream.writeInbound(HTTPRequestPart.end(nil))
        #expect(limiter.open(from: newcomer, close: {}) == nil, "the only slot is answering a request")
        #expect(closed.all.isEmpty)

        try stream.writeOutbound(HTTPResponsePart.head(HTTPResponse(status: .ok)))
        try stream.writeOutbound(HTTPResponsePart.end(nil))
        #expect(limiter.open(from: newcomer, close: {}) != nil, "answered, the connection waits and makes room")
        #expect(closed.all == ["h2"])
    }

    @Test("a stream whose body is still arriving does not protect its connection from making room")
    func receivingIsNotProtected() throws {
        let loop = EmbeddedEventLoop()
        let closed = ClosedConnections()
        let limiter = ConnectionLimiter(total: 1, perClient: nil)
        let (_, activity) = try Self.connection(on: loop, limiter: limiter, closed: closed)
        _ = try Self.stream(on: loop, of: activity)
        #expect(limiter.open(from: try SocketAddress(ipAddress: "203.0.113.8", port: 2), close: {}) != nil)
        #expect(closed.all == ["h2"])
    }

    @Test("with no stream open for the idle limit the connection is closed; an open stream holds it open")
    func idleConnection() throws {
        let loop = EmbeddedEventLoop()
        let (connection, activity) = try Self.connection(on: loop, idle: .seconds(10))
        loop.advanceTime(by: .seconds(9))
        #expect(connection.isActive)
        let stream = try Self.stream(on: loop, of: activity, bodyDeadline: nil)
        loop.advanceTime(by: .seconds(60))
        #expect(connection.isActive, "a stream is open")
        try stream.close().wait()
        loop.advanceTime(by: .seconds(10) - .milliseconds(1))
        #expect(connection.isActive)
        loop.advanceTime(by: .milliseconds(1))
        #expect(!connection.isActive, "idle for the limit since its last stream closed")
    }

    @Test("a stream whose body has not ended within the deadline is reset; its connection stays, and a finished stream is not")
    func bodyDeadline() throws {
        let loop = EmbeddedEventLoop()
        let (connection, activity) = try Self.connection(on: loop)
        let slow = try Self.stream(on: loop, of: activity)
        let prompt = try Self.stream(on: loop, of: activity)
        try prompt.writeInbound(HTTPRequestPart.body(ByteBuffer(string: "{}")))
        try prompt.writeInbound(HTTPRequestPart.end(nil))
        loop.advanceTime(by: .seconds(10) - .milliseconds(1))
        #expect(slow.isActive)
        loop.advanceTime(by: .milliseconds(1))
        #expect(!slow.isActive, "its body did not end in time")
        #expect(prompt.isActive)
        #expect(connection.isActive)
        // The parts went on to the handler after it, unchanged.
        guard case .head(let head)? = try prompt.readInbound(as: HTTPRequestPart.self) else { Issue.record("no head"); return }
        #expect(head.path == "/api/login/verify")
    }
}
