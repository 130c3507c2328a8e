import Foundation
import Testing
@testable import LatchkeyServer

/// An in-process Latchkey that sends its mail to a `TestRelay` on 127.0.0.1 (smtp://, which asks no relay
/// on loopback for STARTTLS), and reads what arrived there as a person reads their inbox. The mail goes
/// after the answer (`MailOutbox`): `mail(_:)` waits for it, and `jobsDone()` reads
/// `latchkey_mail_jobs_total` from `/metrics`, which counts every job once it is over — the way to know
/// that a mail that did not come is not still on its way.
struct Mailroom: Sendable {
    let api: APIClient
    let application: LatchkeyApplication
    let relay: TestRelay

    static func run(
        recoveryEmail: Bool = true, now: @escaping @Sendable () -> Date = { Date() }, _ body: @Sendable (Mailroom) async throws -> Void
    ) async throws {
        let relay = try await TestRelay(startTLS: .notOffered, requireTLS: false)
        let configuration = TestServer.configuration {
            $0.smtpURL = relay.url(scheme: .startTLSWhenOffered)
            $0.smtpFrom = "Latchkey Test <noreply@example.com>"
            $0.recoveryEmail = recoveryEmail
        }
        do {
            try await TestServer.withApplication(configuration, now: now) { api, application in
                try await body(Mailroom(api: api, application: application, relay: relay))
            }
        } catch {
            try? await relay.stop()
            throw error
        }
        try await relay.stop()
    }

    /// The `number`th message the relay took (from 1), waiting for it: its headers and its body decoded
    /// from quoted-printable, lines joined by CRLF.
    func mail(_ number: Int) async throws -> String {
        try #require(try await eventually { relay.messages.count >= number }, "mail \(number) never came (\(relay.messages.count) did)")
        return Self.decoded(relay.messages[number - 1].text)
    }

    /// How many mail jobs the outbox finished.
    func jobsDone() async throws -> Int {
        let metrics = try await api.send(.get, "/metrics").text
        let line = metrics.split(separator: "\n").first { $0.hasPrefix("latchkey_mail_jobs_total ") }
        return line.flatMap { Double($0.split(separator: " ").last ?? "") }.map { Int($0) } ?? 0
    }

    /// Waits until the outbox finished `count` jobs.
    func waitForJobs(_ count: Int) async throws {
        try #require(try await eventually { try await jobsDone() >= count }, "the outbox did not finish \(count) jobs")
    }

    /// Quoted-printable (RFC 2045 §6.7) undone: soft line breaks joined, `=XX` made bytes again.
    static func decoded(_ text: String) -> String {
        let bytes = Array(text.replacingOccurrences(of: "=\r\n", with: "").utf8)
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "="), index + 2 < bytes.count,
               let value = UInt8(String(decoding: bytes[index + 1...index + 2], as: UTF8.self), radix: 16) {
                out.append(value)
                index += 3
            } else {
                out.append(bytes[index])
                index += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// The secret after `ORIGIN/page#` in `mail`, of the form `pattern`.
    static func secret(in mail: String, page: String, pattern: String) throws -> String {
        let link = try Regex(NSRegularExpression.escapedPattern(for: TestServer.origin + "/" + page + "#") + "(" + pattern + ")")
        let match = try #require(try link.firstMatch(in: mail), "no \(page) link in: \(mail)")
        return try #require(match.output[1].substring.map(String.init))
    }

    static func confirmationToken(in mail: String) throws -> String {
        try secret(in: mail, page: "verify-email", pattern: "[A-Za-z0-9_-]{43}")
    }

    static func recoveryCode(in mail: String) throws -> String {
        try secret(in: mail, page: "recover", pattern: "[A-Z2-7]{5}(?:-[A-Z2-7]{5}){4}")
    }

    func setEmail(_ address: String, token: String) async throws -> APIClient.Reply {
        try await api.send(.put, "/api/account/email", object: ["email": address], token: token)
    }

    func askForRecovery(_ address: String) async throws -> APIClient.Reply {
        try await api.send(.post, "/api/recovery/email", object: ["email": address])
    }
}
