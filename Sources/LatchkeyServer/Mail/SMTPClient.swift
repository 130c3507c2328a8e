import Foundation
import NIOCore
import NIOPosix
import NIOSSL

/// Hands one message to an SMTP server (`SMTPServer`) over a connection of its own: the greeting, EHLO
/// (HELO for an old server), STARTTLS (`SMTPServer.Security`: when offered and not on loopback for smtp://,
/// always for smtp+starttls://, where a relay that does not offer it gets no mail), AUTH PLAIN when the URL
/// has a user (only over TLS or to loopback), MAIL FROM, RCPT TO, DATA, QUIT. Every step has a
/// deadline (`Timeouts`): a server that stops answering fails the send, it never holds it. The replies'
/// size is bounded by `SMTPReplyDecoder`. Written on SwiftNIO directly: one round trip at a time.
struct SMTPClient: Sendable {
    struct Timeouts: Sendable {
        var connect: TimeAmount = .seconds(10)
        /// Each reply, the greeting included.
        var reply: TimeAmount = .seconds(30)
        /// The reply to the end of the message, which a server may check before it answers.
        var dataEnd: TimeAmount = .seconds(60)
    }

    let server: SMTPServer
    /// The name given in EHLO: the relying party's domain.
    let heloName: String
    let eventLoopGroup: any EventLoopGroup
    var timeouts = Timeouts()
    private let tls: NIOSSLContext

    /// `trustRoots`: a PEM file of certificates to trust instead of the system's (a private relay's CA).
    init(server: SMTPServer, heloName: String, eventLoopGroup: any EventLoopGroup, trustRoots: String? = nil) throws {
        self.server = server
        self.heloName = heloName
        self.eventLoopGroup = eventLoopGroup
        var configuration = TLSConfiguration.makeClientConfiguration()
        if let trustRoots { configuration.trustRoots = .file(trustRoots) }
        tls = try NIOSSLContext(configuration: configuration)
    }

    func send(_ message: MailMessage) async throws(SMTPFailure) {
        let data: [UInt8]
        do { data = try message.smtpData() } catch { throw .invalidMessage(error) }
        let channel: any Channel, connection: SMTPConnection
        do {
            channel = try await connect()
            connection = try await SMTPConnection(channel: channel)
        } catch {
            throw .closed(step: "connecting to \(server.host):\(server.port) (\(error))")
        }
        do {
            // Cancelled (the server is stopping): the connection closes, which ends the step waiting on it.
            try await withTaskCancellationHandler {
                try await converse(on: connection, from: message.from.address, to: message.to, data: data)
            } onCancel: {
                channel.close(promise: nil)
            }
            channel.close(promise: nil)
        } catch {
            channel.close(promise: nil)
            if let failure = error as? SMTPFailure { throw failure }
            // A certificate that does not verify is the configuration's to fix, not a moment's: permanent,
            // over smtps:// and after STARTTLS alike.
            if error is NIOSSLError || error is BoringSSLError { throw .insecure(tlsFailure(error)) }
            throw .protocolError("\(error)")
        }
    }

    private func connect() async throws -> any Channel {
        let tls = tls, implicit = server.security == .implicitTLS, hostname = sniName
        return try await ClientBootstrap(group: eventLoopGroup)
            .connectTimeout(timeouts.connect)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    if implicit { try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: tls, serverHostname: hostname)) }
                    try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(SMTPReplyDecoder()))
                    try channel.pipeline.syncOperations.addHandler(SMTPConversation())
                }
            }
            .connect(host: server.host, port: server.port).get()
    }

    /// A TLS failure for the log: the server, whether it came after STARTTLS, the TLS library's own words
    /// (CERTIFICATE_VERIFY_FAILED, WRONG_VERSION_NUMBER, …) and, for a certificate, what the operator can do.
    private func tlsFailure(_ error: any Error) -> String {
        let how = server.security == .implicitTLS ? "" : " after STARTTLS"
        var text = "the TLS connection to the SMTP server \(server.host)\(how) failed: \(error)"
        if "\(error)".contains("CERTIFICATE_VERIFY_FAILED") {
            text += " (its certificate is not one Latchkey trusts for \(server.host): give the CA that issued it with --smtp-ca-file)"
        }
        return text
    }

    /// The name TLS checks the certificate against; none for an address literal.
    private var sniName: String? {
        server.host.contains(":") || server.host.allSatisfy({ $0.isNumber || $0 == "." }) ? nil : server.host
    }

    private func converse(on connection: SMTPConnection, from: EmailAddress, to: EmailAddress, data: [UInt8]) async throws {
        try expect(await connection.reply(step: "the greeting", timeout: timeouts.reply), [220], step: "the connection")
        var hello = try await command("EHLO \(heloName)", on: connection, step: "EHLO")
        if !hello.isPositive {
            hello = try await command("HELO \(heloName)", on: connection, step: "HELO")
            try expect(hello, [250], step: "HELO")
        }
        var encrypted = server.security == .implicitTLS
        if !encrypted, try startsTLS(offered: hello.offers("STARTTLS")) {
            try expect(await command("STARTTLS", on: connection, step: "STARTTLS"), [220], step: "STARTTLS")
            try await connection.startTLS(tls, serverHostname: sniName)
            encrypted = true
            // The handshake's outcome arrives with this EHLO: its write waits for it (`SMTPConnection`).
            hello = try await command("EHLO \(heloName)", on: connection, step: "EHLO after STARTTLS")
            try expect(hello, [250], step: "EHLO after STARTTLS")
        }
        if let username = server.username {
            guard encrypted || server.isLoopback else {
                throw SMTPFailure.insecure("the SMTP server \(server.host) offers no STARTTLS, and the password is not sent over a network in clear (use smtps://)")
            }
            guard hello.extensionParameters("AUTH")?.contains("PLAIN") == true else {
                throw SMTPFailure.insecure("the SMTP server \(server.host) does not offer AUTH PLAIN, the only way Latchkey logs in")
            }
            let credentials = Data([0] + Array(username.utf8) + [0] + Array((server.password ?? "").utf8)).base64EncodedString()
            try expect(await command("AUTH PLAIN \(credentials)", on: connection, step: "the user name and password"), [235], step: "the user name and password")
        }
        try expect(await command("MAIL FROM:<\(from.value)>", on: connection, step: "MAIL FROM"), [250], step: "the sender")
        try expect(await command("RCPT TO:<\(to.value)>", on: connection, step: "RCPT TO"), [250, 251], step: "the recipient")
        try expect(await command("DATA", on: connection, step: "DATA"), [354], step: "DATA")
        try await connection.write(connection.channel.allocator.buffer(bytes: data), step: "the message")
        try expect(await connection.reply(step: "the end of the message", timeout: timeouts.dataEnd), [250], step: "the message")
        // Handed over: a server that does not say goodbye properly changes nothing now.
        _ = try? await command("QUIT", on: connection, step: "QUIT")
    }

    /// Whether to ask for STARTTLS, the server's EHLO (or HELO) reply `offered` it or not. smtp:// asks
    /// when offered, except of a relay on loopback; smtp+starttls:// always, and without the offer sends
    /// nothing: no plain-text fallback that an attacker could force by stripping the offer.
    private func startsTLS(offered: Bool) throws(SMTPFailure) -> Bool {
        switch server.security {
        case .implicitTLS: return false
        case .startTLSWhenOffered: return offered && !server.isLoopback
        case .startTLSRequired:
            guard offered else {
                throw .insecure("the SMTP server \(server.host) does not offer STARTTLS, which smtp+starttls:// requires")
            }
            return true
        }
    }

    private func command(_ line: String, on connection: SMTPConnection, step: String) async throws -> SMTPReply {
        try await connection.command(line, step: step, timeout: timeouts.reply)
    }

    private func expect(_ reply: SMTPReply, _ codes: Set<Int>, step: String) throws {
        guard codes.contains(reply.code) else { throw SMTPFailure.refused(step: step, reply: reply) }
    }
}
