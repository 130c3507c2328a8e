import LatchkeyAPI
import NIOCore
import NIOHTTP1

/// Answers a request whose head cannot be parsed (an empty `Content-Length`, an unknown
/// `Transfer-Encoding`, a broken request line) with the API's JSON error — 400 `malformed_http` — and
/// closes the connection. Without it the answer is Hummingbird's bare 400 with no body: the one refusal
/// a client could get that does not say what was wrong.
///
/// It sits right after NIO's request decoder. It answers only when no request is in progress on the
/// connection: a parse error inside a body (broken chunked framing) reaches the route's handler, whose
/// error middleware answers it, and one that comes while an earlier response is still being written is
/// left to Hummingbird, so that two responses never interleave.
package final class MalformedHeadHandler: ChannelDuplexHandler, RemovableChannelHandler {
    package typealias InboundIn = HTTPServerRequestPart
    package typealias InboundOut = HTTPServerRequestPart
    package typealias OutboundIn = HTTPServerResponsePart
    package typealias OutboundOut = HTTPServerResponsePart

    /// Requests whose head has arrived and whose response has not been written to its end.
    private var unanswered = 0
    private var answered = false
    /// Over TLS every response carries HSTS (`StrictTransportSecurityMiddleware`), this one too.
    private let strictTransportSecurity: Bool

    package init(strictTransportSecurity: Bool = false) {
        self.strictTransportSecurity = strictTransportSecurity
    }

    package static let body: ByteBuffer = ByteBuffer(
        string: #"{"error":{"code":""# + ErrorCode.malformedHTTP.rawValue
            + #"","message":"The request's HTTP head is malformed (request line, header fields or framing)."}}"#)

    package func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) { unanswered += 1 }
        context.fireChannelRead(data)
    }

    package func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        if case .end = unwrapOutboundIn(data) { unanswered = max(0, unanswered - 1) }
        context.write(data, promise: promise)
    }

    package func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard error is HTTPParserError, unanswered == 0, !answered else {
            context.fireErrorCaught(error)
            return
        }
        answered = true
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "application/json; charset=utf-8")
        headers.add(name: "Content-Length", value: "\(Self.body.readableBytes)")
        headers.add(name: "Cache-Control", value: "no-store")
        headers.add(name: "Connection", value: "close")
        if strictTransportSecurity { headers.add(name: "Strict-Transport-Security", value: StrictTransportSecurity.value) }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(Self.body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
