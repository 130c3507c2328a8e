import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
@testable import LatchkeyServer

/// An SMTP relay for the mail tests, on SwiftNIO in the test's process: it greets, answers EHLO (offering
/// STARTTLS, as most relays do), takes one message per MAIL/RCPT/DATA and keeps it with whether it came
/// over TLS. It listens on 127.0.0.1 only, as every server in the tests: `url` is smtp+starttls://, which
/// asks for STARTTLS even on loopback (smtp:// would not: `SMTPServer.isLoopback`).
final class TestRelay: Sendable {
    enum StartTLS: Sendable {
        /// Not offered: the EHLO reply does not name it.
        case notOffered
        /// Offered, and TLS with this context (its certificate) after the 220.
        case offered(NIOSSLContext)
        /// Offered and agreed to (220), then the relay answers the handshake with bytes that are not TLS:
        /// a relay whose TLS is broken.
        case broken
    }

    struct Message: Sendable {
        let encrypted: Bool
        let text: String
    }

    struct Record: Sendable {
        var connections = 0
        var messages: [Message] = []
    }

    let host: String
    let port: Int
    private let channel: any Channel
    private let record: NIOLockedValueBox<Record>

    /// The URL Latchkey is given: STARTTLS required (smtp+starttls://), or `scheme` (smtp://, …).
    func url(scheme: SMTPServer.Security = .startTLSRequired) -> String { "\(scheme.rawValue)://\(host):\(port)" }
    var connections: Int { record.withLockedValue { $0.connections } }
    var messages: [Message] { record.withLockedValue { $0.messages } }

    /// `requireTLS`: MAIL FROM is refused (530) until STARTTLS, as Postfix's `smtpd_tls_security_level = encrypt`.
    /// `hangUpOn`: a command (`MAIL`, …) the relay answers by closing the connection. `replies`: commands
    /// answered with another reply (`["RCPT": "550 5.1.1 no such user"]`). Both only on the first
    /// `misbehaving` connections; the later ones are served as usual.
    init(
        host: String = "127.0.0.1", startTLS: StartTLS, requireTLS: Bool = true, hangUpOn: String? = nil, replies: [String: String] = [:],
        misbehaving: Int = .max, group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton
    ) async throws {
        let record = NIOLockedValueBox(Record())
        channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(CRLFLineDecoder()))
                    try channel.pipeline.syncOperations.addHandler(TestRelaySession(
                        startTLS: startTLS, requireTLS: requireTLS, hangUpOn: hangUpOn, replies: replies, misbehaving: misbehaving, record: record))
                }
            }
            .bind(host: host, port: 0).get()
        self.host = host
        port = channel.localAddress?.port ?? 0
        self.record = record
    }

    func stop() async throws { try await channel.close() }
}

/// One connection to `TestRelay`: a line in, a reply out.
private final class TestRelaySession: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let startTLS: TestRelay.StartTLS
    private let requireTLS: Bool
    private let hangUpOn: String?
    private let replies: [String: String]
    private let misbehaving: Int
    private let record: NIOLockedValueBox<TestRelay.Record>
    private var encrypted = false
    private var data: [String]?
    /// This connection's number, from 1: it misbehaves when it is at most `misbehaving`.
    private var number = 0

    init(
        startTLS: TestRelay.StartTLS, requireTLS: Bool, hangUpOn: String?, replies: [String: String], misbehaving: Int,
        record: NIOLockedValueBox<TestRelay.Record>
    ) {
        self.startTLS = startTLS
        self.requireTLS = requireTLS
        self.hangUpOn = hangUpOn
        self.replies = replies
        self.misbehaving = misbehaving
        self.record = record
    }

    func channelActive(context: ChannelHandlerContext) {
        number = record.withLockedValue { record in
            record.connections += 1
            return record.connections
        }
        send("220 relay.latchkey.test ESMTP test relay", context: context)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data incoming: NIOAny) {
        var buffer = unwrapInboundIn(incoming)
        let line = buffer.readString(length: buffer.readableBytes) ?? ""
        if var lines = data {
            if line == "." {
                record.withLockedValue { $0.messages.append(.init(encrypted: encrypted, text: lines.joined(separator: "\r\n"))) }
                data = nil
                send("250 2.0.0 queued", context: context)
            } else {
                lines.append(line)
                data = lines
            }
            return
        }
        let verb = line.prefix(while: { $0 != " " && $0 != ":" }).uppercased()
        if number <= misbehaving {
            if verb == hangUpOn {
                context.close(promise: nil)
                return
            }
            if let reply = replies[verb] {
                send(reply, context: context)
                return
            }
        }
        switch verb {
        case "EHLO":
            let offers: Bool
            if case .notOffered = startTLS { offers = false } else { offers = !encrypted }
            send(offers ? "250-relay.latchkey.test\r\n250-STARTTLS\r\n250 8BITMIME" : "250-relay.latchkey.test\r\n250 8BITMIME", context: context)
        case "STARTTLS":
            switch startTLS {
            case .notOffered: send("502 5.5.1 not offered", context: context)
            case .offered(let tls):
                send("220 2.0.0 Ready to start TLS", context: context)
                // The 220 is on its way out in clear already: whatever comes in next goes through TLS.
                do {
                    try context.pipeline.syncOperations.addHandler(NIOSSLServerHandler(context: tls), position: .first)
                    encrypted = true
                } catch {
                    context.close(promise: nil)
                }
            case .broken:
                send("220 2.0.0 Ready to start TLS", context: context)
                do {
                    try context.pipeline.syncOperations.addHandler(NotTLS(), position: .first)
                } catch {
                    context.close(promise: nil)
                }
            }
        case "MAIL":
            send(requireTLS && !encrypted ? "530 5.7.0 Must issue a STARTTLS command first" : "250 2.1.0 Ok", context: context)
        case "RCPT": send("250 2.1.5 Ok", context: context)
        case "DATA":
            data = []
            send("354 End data with <CR><LF>.<CR><LF>", context: context)
        case "QUIT":
            send("221 2.0.0 Bye", context: context)
            context.close(promise: nil)
        default: send("502 5.5.2 Error: command not recognized", context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    private func send(_ reply: String, context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: reply + "\r\n")), promise: nil)
    }
}

/// What `TestRelay.StartTLS.broken` answers the client's TLS hello with: a line that is no TLS record.
/// Answered only once the hello has come, so that it cannot arrive before the client's TLS does.
private final class NotTLS: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    private var answered = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !answered else { return }
        answered = true
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: "this is not TLS, and the handshake ends here\r\n")), promise: nil)
    }
}

/// Lines ending in CRLF, without it; at most 4 KiB (a test's lines are short).
private struct CRLFLineDecoder: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        let view = buffer.readableBytesView
        guard let end = view.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > 4096 { throw ByteToMessageDecoderError.PayloadTooLargeError() }
            return .needMoreData
        }
        let length = end - view.startIndex
        var line = buffer.readSlice(length: length) ?? ByteBuffer()
        buffer.moveReaderIndex(forwardBy: 1)
        if line.readableBytes > 0, line.getInteger(at: line.writerIndex - 1, as: UInt8.self) == UInt8(ascii: "\r") {
            line.moveWriterIndex(to: line.writerIndex - 1)
        }
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }
}
