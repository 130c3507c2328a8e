import Foundation
import Logging
import MetricsTestKit
import NIOCore
import NIOPosix
import Testing
@testable import LatchkeyServer

/// Mail over STARTTLS (issue 51) to a relay in the test's process (`TestRelay`, on 127.0.0.1, given as
/// smtp+starttls://) that offers it and, like Postfix with `smtpd_tls_security_level = encrypt`, takes no
/// mail without it: a relay whose CA is given (`--smtp-ca-file`) gets the mail over TLS; a certificate
/// Latchkey does not trust, or a handshake the relay fails, is the permanent failure it is — named, one
/// attempt, one log line, counted — as over smtps://, not "I/O on closed channel" tried three times. A
/// relay that offers no STARTTLS gets no mail from smtp+starttls://; smtp:// still asks no relay on
/// loopback for it. The same against Debian's Postfix: Tests/System/Mail.
@Suite("Mail over STARTTLS")
struct SMTPStartTLSTests {
    /// Where every relay here listens: loopback only, as every server in the tests.
    static let host = "127.0.0.1"

    static func address(_ text: String) throws -> EmailAddress { try EmailAddress.parse(text).get() }

    static func client(_ relay: TestRelay, scheme: SMTPServer.Security = .startTLSRequired, trustRoots: String?) throws -> SMTPClient {
        var client = try SMTPClient(
            server: try SMTPServer(parsing: relay.url(scheme: scheme)), heloName: "latchkey.test", eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            trustRoots: trustRoots)
        client.timeouts.reply = .seconds(10)
        return client
    }

    /// What `MailSender` did with one mail: whether it was sent, its log lines (as `LineLogHandler` writes
    /// them) and `latchkey_mail_failures_total`. Retries come after 50 ms here, so a failure wrongly
    /// taken for a passing one shows as three attempts at once.
    static func sendThroughSender(_ client: SMTPClient) async throws -> (sent: Bool, lines: [String], failures: Int64) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-mail-log-\(UUID().uuidString)").path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        try #require(descriptor >= 0)
        defer { unlink(path) }
        let metrics = TestMetrics()
        var sender = MailSender(
            client: client, from: .init(name: "Latchkey", address: try address("noreply@latchkey.test")),
            logger: Logger(label: "latchkey") { LineLogHandler(label: $0, fileDescriptor: descriptor) }, metrics: metrics)
        sender.retryDelays = [.milliseconds(50), .milliseconds(50)]
        let sent = await sender.send(to: try address("ada@latchkey.test"), subject: "Confirm your email address", text: "Hello\n", purpose: "confirmation")
        close(descriptor)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        return (sent, lines, metrics.counterTotal(label: "latchkey_mail_failures_total"))
    }

    /// A mail sent straight through `client` (the failure it threw, if any), then one through `MailSender`
    /// (`sendThroughSender`), and the relay stopped: what each refusal test looks at.
    static func refusedTwice(_ client: SMTPClient, by relay: TestRelay) async throws -> (failure: SMTPFailure, outcome: (sent: Bool, lines: [String], failures: Int64)) {
        let message = try MailMessageTests.message()
        var failure: SMTPFailure?
        do throws(SMTPFailure) { try await client.send(message) } catch { failure = error }
        let outcome = try await sendThroughSender(client)
        try await relay.stop()
        return (try #require(failure), outcome)
    }

    static func isTLSFailure(_ failure: SMTPFailure) -> Bool {
        if case .insecure = failure { true } else { false }
    }

    @Test("the relay's CA given (--smtp-ca-file): STARTTLS, and the mail goes over TLS")
    func trusted() async throws {
        let certificates = try TestMailCertificates(ipAddress: try SocketAddress(ipAddress: Self.host, port: 0))
        defer { certificates.remove() }
        let relay = try await TestRelay(host: Self.host, startTLS: .offered(try certificates.relayTLS()))
        let outcome = try await Self.sendThroughSender(try Self.client(relay, trustRoots: certificates.caFile))
        try await relay.stop()
        #expect(outcome.sent && outcome.failures == 0)
        #expect(relay.messages.count == 1)
        #expect(relay.messages.first?.encrypted == true, "the message came after STARTTLS")
        #expect(relay.messages.first?.text.contains("Subject: Confirm your email address") == true)
        #expect(outcome.lines.count == 1 && outcome.lines.first?.contains("mail sent") == true, "\(outcome.lines)")
    }

    @Test("a certificate Latchkey does not trust, after STARTTLS: the certificate and the host named, permanent, tried once, counted")
    func untrusted() async throws {
        let certificates = try TestMailCertificates(ipAddress: try SocketAddress(ipAddress: Self.host, port: 0))
        defer { certificates.remove() }
        let relay = try await TestRelay(host: Self.host, startTLS: .offered(try certificates.relayTLS()))
        let client = try Self.client(relay, trustRoots: nil)  // the system's roots: no --smtp-ca-file
        let (error, outcome) = try await Self.refusedTwice(client, by: relay)
        #expect(Self.isTLSFailure(error), "not the TLS failure: \(error)")
        #expect(error.isPermanent)
        #expect(error.description.contains("CERTIFICATE_VERIFY_FAILED") && error.description.contains(Self.host), "\(error)")
        #expect(!error.description.contains("closed channel"), "\(error)")
        #expect(relay.messages.isEmpty)
        #expect(relay.connections == 2, "one connection for the direct send, one for MailSender's: no retry")
        #expect(!outcome.sent && outcome.failures == 1)
        #expect(outcome.lines.count == 1, "one line: \(outcome.lines)")
        let line = try #require(outcome.lines.first)
        #expect(line.contains("mail not sent") && !line.contains("trying again") && line.contains("CERTIFICATE_VERIFY_FAILED"), "\(line)")
    }

    @Test("a relay that offers STARTTLS and then fails the handshake: the same permanent failure, once")
    func brokenHandshake() async throws {
        let certificates = try TestMailCertificates(ipAddress: try SocketAddress(ipAddress: Self.host, port: 0))
        defer { certificates.remove() }
        let relay = try await TestRelay(host: Self.host, startTLS: .broken)
        let client = try Self.client(relay, trustRoots: certificates.caFile)
        let (error, outcome) = try await Self.refusedTwice(client, by: relay)
        #expect(Self.isTLSFailure(error), "not the TLS failure: \(error)")
        #expect(error.isPermanent && error.description.contains(Self.host) && !error.description.contains("closed channel"), "\(error)")
        #expect(relay.connections == 2, "no retry")
        #expect(!outcome.sent && outcome.failures == 1)
        #expect(outcome.lines.count == 1 && outcome.lines.first?.contains("mail not sent") == true, "\(outcome.lines)")
    }

    @Test("smtp+starttls:// to a relay that offers no STARTTLS: one permanent line naming the host and the scheme, and no mail")
    func requiredButNotOffered() async throws {
        let relay = try await TestRelay(host: Self.host, startTLS: .notOffered, requireTLS: false)  // it would take mail in clear
        let client = try Self.client(relay, trustRoots: nil)
        let (error, outcome) = try await Self.refusedTwice(client, by: relay)
        #expect(Self.isTLSFailure(error) && error.isPermanent, "\(error)")
        #expect(error.description == "the SMTP server \(Self.host) does not offer STARTTLS, which smtp+starttls:// requires")
        #expect(relay.messages.isEmpty && relay.connections == 2, "no mail, no retry")
        #expect(!outcome.sent && outcome.failures == 1)
        #expect(outcome.lines.count == 1, "one line: \(outcome.lines)")
        let line = try #require(outcome.lines.first)
        #expect(line.contains("error=\(error.description)") && line.hasSuffix("mail not sent"), "\(line)")
        #expect(line.contains("server=smtp+starttls://\(Self.host):\(relay.port)"), "\(line)")
    }

    @Test("smtp:// to a relay on loopback that offers STARTTLS: not asked, the mail goes in clear (as before smtp+starttls://)")
    func loopbackNotAsked() async throws {
        let certificates = try TestMailCertificates(ipAddress: try SocketAddress(ipAddress: Self.host, port: 0))
        defer { certificates.remove() }
        let relay = try await TestRelay(host: Self.host, startTLS: .offered(try certificates.relayTLS()), requireTLS: false)
        let outcome = try await Self.sendThroughSender(try Self.client(relay, scheme: .startTLSWhenOffered, trustRoots: certificates.caFile))
        try await relay.stop()
        #expect(outcome.sent && outcome.failures == 0 && relay.connections == 1)
        #expect(relay.messages.count == 1 && relay.messages.first?.encrypted == false, "no STARTTLS asked of loopback")
    }

    @Test("smtp:// to a relay on loopback that offers and requires TLS: not asked for STARTTLS, so its refusal (530) is the cause, permanent, and no mail")
    func loopbackRequiringTLS() async throws {
        let certificates = try TestMailCertificates(ipAddress: try SocketAddress(ipAddress: Self.host, port: 0))
        defer { certificates.remove() }
        let relay = try await TestRelay(host: Self.host, startTLS: .offered(try certificates.relayTLS()))
        let outcome = try await Self.sendThroughSender(try Self.client(relay, scheme: .startTLSWhenOffered, trustRoots: nil))
        try await relay.stop()
        #expect(!outcome.sent && outcome.failures == 1 && relay.connections == 1 && relay.messages.isEmpty)
        #expect(outcome.lines.count == 1 && outcome.lines.first?.contains("530 5.7.0 Must issue a STARTTLS command first") == true, "\(outcome.lines)")
    }

    @Test("a relay that hangs up mid-conversation, after STARTTLS: the closed connection is the cause, named by its step, and passing (tried again)")
    func hangUp() async throws {
        let certificates = try TestMailCertificates(ipAddress: try SocketAddress(ipAddress: Self.host, port: 0))
        defer { certificates.remove() }
        let relay = try await TestRelay(host: Self.host, startTLS: .offered(try certificates.relayTLS()), hangUpOn: "MAIL")
        let outcome = try await Self.sendThroughSender(try Self.client(relay, trustRoots: certificates.caFile))
        try await relay.stop()
        #expect(!outcome.sent && outcome.failures == 1 && relay.connections == 3 && relay.messages.isEmpty)
        #expect(outcome.lines.count == 3, "\(outcome.lines)")
        #expect(outcome.lines.allSatisfy { $0.contains("error=the SMTP server closed the connection during MAIL FROM") }, "\(outcome.lines)")
        #expect(outcome.lines.last?.hasSuffix("mail not sent") == true, "\(outcome.lines)")
    }
}
