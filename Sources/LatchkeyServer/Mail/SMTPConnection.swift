import NIOCore
import NIOSSL

/// One connection to an SMTP server as `SMTPClient` uses it: the channel and the conversation at its end
/// (`SMTPConversation`), one round trip at a time. Once the connection has ended — a TLS handshake that
/// failed, a deadline, the server closing — every later step reports the first cause, which the
/// conversation keeps: the failed write to the closed channel would only say "I/O on closed channel" (issue
/// 51: a certificate refused after STARTTLS was logged so, and tried again as if it might pass).
struct SMTPConnection: Sendable {
    let channel: any Channel
    /// Held here, not looked up in the pipeline: a closed channel's pipeline drops its handlers, and with
    /// them the cause.
    private let conversation: NIOLoopBound<SMTPConversation>

    /// The connection on `channel`, whose pipeline ends in an `SMTPConversation`.
    init(channel: any Channel) async throws {
        self.channel = channel
        conversation = try await channel.eventLoop.submit {
            NIOLoopBound(try channel.pipeline.syncOperations.handler(type: SMTPConversation.self), eventLoop: channel.eventLoop)
        }.get()
    }

    func command(_ line: String, step: String, timeout: TimeAmount) async throws -> SMTPReply {
        try await write(channel.allocator.buffer(string: line + "\r\n"), step: step)
        return try await reply(step: step, timeout: timeout)
    }

    func write(_ bytes: ByteBuffer, step: String) async throws {
        do {
            try await channel.writeAndFlush(bytes).get()
        } catch {
            throw await cause(of: error, step: step)
        }
    }

    /// The next reply within `timeout`, or why none will come.
    func reply(step: String, timeout: TimeAmount) async throws -> SMTPReply {
        let conversation = conversation, eventLoop = channel.eventLoop
        return try await eventLoop.flatSubmit { conversation.value.next(on: eventLoop, timeout: timeout, step: step) }.get()
    }

    /// Puts TLS under the conversation (STARTTLS, after the server's 220): what is written from now on
    /// waits for the handshake, and fails with its error when it fails.
    func startTLS(_ context: NIOSSLContext, serverHostname: String?) async throws {
        let channel = channel
        try await channel.eventLoop.submit {
            try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: context, serverHostname: serverHostname), position: .first)
        }.get()
    }

    /// Why a write failed: the conversation's end when it has ended (a closed connection named by the
    /// step that found it closed), a closed connection for a channel's own error, else the error itself.
    private func cause(of error: any Error, step: String) async -> any Error {
        let conversation = conversation
        let ended = (try? await channel.eventLoop.submit { conversation.value.endCause }.get()) ?? nil
        if let failure = ended as? SMTPFailure, case .closed = failure { return SMTPFailure.closed(step: step) }
        if let ended { return ended }
        return error is ChannelError ? SMTPFailure.closed(step: step) : error
    }
}
