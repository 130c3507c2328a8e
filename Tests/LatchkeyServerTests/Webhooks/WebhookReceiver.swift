import Crypto
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// A webhook receiver in the test's process, on SwiftNIO, listening on 127.0.0.1 only (as every server in
/// the tests): it keeps every POST it takes (204), or answers 503 while it is `down`, and counts those.
/// Its address is internal, so a server delivering to it needs `webhookAllowPrivate`, as
/// Tests/System/Webhooks does with `--webhook-allow-private`.
final class WebhookReceiver: Sendable {
    struct Delivery: Sendable {
        let headers: HTTPHeaders
        let body: [UInt8]
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
    }

    struct Record: Sendable {
        var down = false
        /// What it answers with (200) instead of 204: a document it serves (a client's published keys).
        var serving: [UInt8]?
        var accepted: [Delivery] = []
        var refused = 0
    }

    let port: Int
    private let channel: any Channel
    private let record: NIOLockedValueBox<Record>

    var url: String { "http://127.0.0.1:\(port)/hooks/latchkey" }
    var accepted: [Delivery] { record.withLockedValue { $0.accepted } }
    /// Deliveries answered 503 while down.
    var refused: Int { record.withLockedValue { $0.refused } }

    func setDown(_ down: Bool) { record.withLockedValue { $0.down = down } }
    /// Answers every request with `document` (200, JSON) from now on.
    func serve(_ document: String) { record.withLockedValue { $0.serving = Array(document.utf8) } }

    init() async throws {
        let record = NIOLockedValueBox(Record())
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(WebhookReceiverHandler(record: record))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        port = channel.localAddress?.port ?? 0
        self.record = record
    }

    func stop() async throws { try await channel.close() }

    /// Whether `header` (`t=<seconds>,v1=<hex>`) is HMAC-SHA256(`secret`, "<t>.<body>") with a `t` within
    /// five minutes of now: the README's check, written again here from the scheme, not from the server's code.
    static func verifies(_ header: String?, body: [UInt8], secret: String) -> Bool {
        var fields: [Substring: Substring] = [:]
        for part in (header ?? "").split(separator: ",") {
            let pair = part.split(separator: "=", maxSplits: 1)
            if pair.count == 2 { fields[pair[0]] = pair[1] }
        }
        guard let t = fields["t"], let seconds = Int64(t), let v1 = fields["v1"] else { return false }
        let mac = HMAC<SHA256>.authenticationCode(for: Array("\(t).".utf8) + body, using: SymmetricKey(data: Array(secret.utf8)))
        let expected = mac.map { String(format: "%02x", $0) }.joined()
        return expected == v1 && abs(Int64(Date().timeIntervalSince1970) - seconds) <= 300
    }
}

/// One connection to `WebhookReceiver`: a request in, 204 (or 503 while down) out.
private final class WebhookReceiverHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let record: NIOLockedValueBox<WebhookReceiver.Record>
    private var head: HTTPRequestHead?
    private var body: [UInt8] = []

    init(record: NIOLockedValueBox<WebhookReceiver.Record>) {
        self.record = record
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
            body = []
        case .body(let buffer):
            body += buffer.readableBytesView
        case .end:
            guard let head else { return }
            let delivery = WebhookReceiver.Delivery(headers: head.headers, body: body)
            let (status, served): (HTTPResponseStatus, [UInt8]?) = record.withLockedValue { record in
                if record.down {
                    record.refused += 1
                    return (.serviceUnavailable, nil)
                }
                record.accepted.append(delivery)
                return record.serving.map { (.ok, $0) } ?? (.noContent, nil)
            }
            var headers = HTTPHeaders()
            headers.add(name: "Content-Length", value: "\(served?.count ?? 0)")
            if served != nil { headers.add(name: "Content-Type", value: "application/json") }
            if !head.isKeepAlive { headers.add(name: "Connection", value: "close") }
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: head.version, status: status, headers: headers))), promise: nil)
            if let served { context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: served)))), promise: nil) }
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            if !head.isKeepAlive { context.close(promise: nil) }
            self.head = nil
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
