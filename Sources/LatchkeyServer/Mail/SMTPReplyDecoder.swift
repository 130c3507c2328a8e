import NIOCore

/// Frames SMTP replies out of the bytes a server sends: lines `ddd-text` continue a reply and `ddd text`
/// (or `ddd`) ends it. What a server may send is bounded — a line of `lineLimit` bytes, a reply of
/// `lineCountLimit` lines — and anything else is a protocol error that ends the connection.
struct SMTPReplyDecoder: ByteToMessageDecoder {
    typealias InboundOut = SMTPReply

    struct Malformed: Error, CustomStringConvertible {
        let reason: String
        var description: String { "the SMTP server's reply \(reason)" }
    }

    static let lineLimit = 1000
    static let lineCountLimit = 100

    private var code: Int?
    private var lines: [String] = []

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: UInt8(ascii: "\n")) else {
            if buffer.readableBytes > Self.lineLimit { throw Malformed(reason: "has a line longer than \(Self.lineLimit) bytes") }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex + 1
        guard length <= Self.lineLimit + 2, var bytes = buffer.readBytes(length: length) else {
            throw Malformed(reason: "has a line longer than \(Self.lineLimit) bytes")
        }
        bytes.removeLast()
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        guard bytes.count >= 3, bytes[0..<3].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
              let lineCode = Int(String(decoding: bytes[0..<3], as: UTF8.self)),
              bytes.count == 3 || bytes[3] == UInt8(ascii: " ") || bytes[3] == UInt8(ascii: "-")
        else { throw Malformed(reason: "has a line that does not begin with a three-digit code") }
        if let code, code != lineCode { throw Malformed(reason: "changes its code in the middle") }
        code = lineCode
        lines.append(bytes.count > 4 ? String(decoding: bytes[4...], as: UTF8.self) : "")
        guard lines.count <= Self.lineCountLimit else { throw Malformed(reason: "has more than \(Self.lineCountLimit) lines") }
        if bytes.count == 3 || bytes[3] == UInt8(ascii: " ") {
            context.fireChannelRead(wrapInboundOut(SMTPReply(code: lineCode, lines: lines)))
            code = nil
            lines = []
        }
        return .continue
    }

    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        return .needMoreData
    }
}
