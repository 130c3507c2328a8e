@testable import LatchkeyTransport
import NIOCore
import NIOEmbedded
import NIOHTTP1
import Testing
@testable import LatchkeyServer

@Suite("Request body deadline")
struct RequestDeadlineHandlerTests {
    static let limit = TimeAmount.seconds(10)

    static func channel() throws -> EmbeddedChannel {
        let channel = EmbeddedChannel(handler: RequestDeadlineHandler(limit: limit))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        return channel
    }

    static func head(_ channel: EmbeddedChannel) throws {
        try channel.writeInbound(HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_1, method: .POST, uri: "/api/login/verify")))
    }

    static func end(_ channel: EmbeddedChannel) throws {
        try channel.writeInbound(HTTPServerRequestPart.end(nil))
    }

    /// Open 1 ms before `delay` has passed, closed when it has.
    static func expectClosed(_ channel: EmbeddedChannel, after delay: TimeAmount) {
        channel.embeddedEventLoop.advanceTime(by: delay - .milliseconds(1))
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        #expect(!channel.isActive)
    }

    @Test("a body still arriving at its head's deadline closes the connection then, not before")
    func overdueBody() throws {
        let channel = try Self.channel()
        try Self.head(channel)
        Self.expectClosed(channel, after: Self.limit)
    }

    @Test("finished requests keep the connection open however long it lives")
    func finishedRequests() throws {
        let channel = try Self.channel()
        for _ in 0..<5 {
            try Self.head(channel)
            channel.embeddedEventLoop.advanceTime(by: .seconds(3))
            try Self.end(channel)
            channel.embeddedEventLoop.advanceTime(by: .seconds(4))
        }
        channel.embeddedEventLoop.advanceTime(by: Self.limit * 3)
        #expect(channel.isActive)
        _ = try channel.finish()
    }

    @Test("a later request's body gets its own deadline, counted from its own head")
    func laterRequest() throws {
        let channel = try Self.channel()
        try Self.head(channel)
        try Self.end(channel)
        channel.embeddedEventLoop.advanceTime(by: .seconds(9))
        try Self.head(channel) // its body never ends: due at 19 s, not at the first head's 10 s
        Self.expectClosed(channel, after: Self.limit)
    }

    @Test("parts pass through unchanged")
    func passThrough() throws {
        let channel = try Self.channel()
        try Self.head(channel)
        try channel.writeInbound(HTTPServerRequestPart.body(ByteBuffer(string: "{}")))
        try Self.end(channel)
        guard case .head(let head)? = try channel.readInbound(as: HTTPServerRequestPart.self) else { Issue.record("no head"); return }
        #expect(head.uri == "/api/login/verify")
        guard case .body(let body)? = try channel.readInbound(as: HTTPServerRequestPart.self) else { Issue.record("no body"); return }
        #expect(String(buffer: body) == "{}")
        guard case .end? = try channel.readInbound(as: HTTPServerRequestPart.self) else { Issue.record("no end"); return }
        _ = try channel.finish()
    }
}
