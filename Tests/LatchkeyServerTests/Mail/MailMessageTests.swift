import Foundation
import Testing
@testable import LatchkeyServer

/// The mail Latchkey writes (`MailMessage`, `EmailAddress`, `SMTPServer`, `SMTPReplyDecoder`'s replies): RFC
/// 5322 with CRLF, nothing that can add a header, SMTP's dot-stuffing, and addresses that cannot break out
/// of a command.
@Suite("Mail messages and addresses")
struct MailMessageTests {
    static func address(_ text: String) throws -> EmailAddress { try EmailAddress.parse(text).get() }

    static func message(subject: String = "Confirm your email address", text: String = "Hello\n", fromName: String? = "Latchkey") throws -> MailMessage {
        MailMessage(
            from: .init(name: fromName, address: try address("noreply@example.com")), to: try address("ada@example.com"),
            subject: subject, text: text, date: Date(timeIntervalSince1970: 1_751_364_000))
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    @Test("headers, a blank line and the body, every line ending in CRLF")
    func layout() throws {
        let rendered = Self.text(try Self.message().rendered())
        let (head, body) = try #require(rendered.split(separator: "\r\n\r\n", maxSplits: 1).map(String.init).twoParts)
        let lines = head.components(separatedBy: "\r\n")
        #expect(lines.filter { !$0.hasPrefix("Message-ID: ") } == [
            "Date: Tue, 01 Jul 2025 10:00:00 +0000", "From: \"Latchkey\" <noreply@example.com>", "To: ada@example.com",
            "Subject: Confirm your email address", "MIME-Version: 1.0", "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: quoted-printable", "Auto-Submitted: auto-generated",
        ])
        #expect(lines.contains { $0.wholeMatch(of: /Message-ID: <[0-9a-f]{32}@example\.com>/) != nil })
        #expect(body == "Hello\r\n\r\n")
        #expect(!rendered.replacingOccurrences(of: "\r\n", with: "").contains("\n"), "no bare line feed")
        #expect(!rendered.replacingOccurrences(of: "\r\n", with: "").contains("\r"), "no bare carriage return")
    }

    @Test("a line break or another control character in any header value refuses the message", arguments: [
        "Hello\r\nBcc: victim@example.com", "Hello\nBcc: victim@example.com", "Hello\rBcc: x", "tab\there", "nul\u{0}", "del\u{7F}",
        "next line\u{85}", "line\u{2028}separator",
    ])
    func headerInjection(_ value: String) throws {
        #expect(throws: MailMessage.Invalid(header: "Subject")) { try Self.message(subject: value).rendered() }
        #expect(throws: MailMessage.Invalid(header: "From")) { try Self.message(fromName: value).rendered() }
        #expect(throws: MailMessage.Invalid.self) { try Self.message(subject: value).smtpData() }
    }

    @Test("addresses: one @, plain ASCII, nothing that breaks out of a header or a command; the domain in lower case")
    func addresses() throws {
        #expect(try Self.address("  Ada.Lovelace+latchkey@Example.COM ").value == "Ada.Lovelace+latchkey@example.com")
        #expect(try Self.address("Ada.Lovelace+latchkey@Example.COM").normalized == "ada.lovelace+latchkey@example.com")
        #expect(try Self.address("o'brien@mail.example.co.uk").value == "o'brien@mail.example.co.uk")
        for bad in [
            "", "ada", "ada@", "@example.com", "a@b@example.com", "ada@example.com\r\nBcc: x@example.com", "ada@example.com>",
            "<ada@example.com>", "ada @example.com", "ada@exa mple.com", "ada,bob@example.com", "ada@-example.com", "ada@example-.com",
            "ada@example..com", ".ada@example.com", "ada.@example.com", "a..da@example.com", "ädä@example.com", "ada@exämple.com",
            "\"ada\"@example.com", "ada@[127.0.0.1]", String(repeating: "a", count: 65) + "@example.com",
            "ada@" + String(repeating: "a", count: 64) + ".com", "ada@" + String(repeating: "abcdefghi.", count: 26) + "com",
        ] {
            #expect(throws: EmailAddress.Problem.self, "\(bad)") { try EmailAddress.parse(bad).get() }
        }
    }

    @Test("a sender is an address or Name <address>")
    func senders() throws {
        #expect(MailMessage.Mailbox.parse("Latchkey <noreply@Example.COM>") == .init(name: "Latchkey", address: try Self.address("noreply@example.com")))
        #expect(MailMessage.Mailbox.parse("\"Example, Inc.\" <noreply@example.com>")?.name == "Example, Inc.")
        #expect(MailMessage.Mailbox.parse("noreply@example.com") == .init(name: nil, address: try Self.address("noreply@example.com")))
        for bad in ["Latchkey <noreply>", "La<tch>key <a@example.com>", "Evil\r\nBcc: x <a@example.com>", "a@example.com, b@example.com"] {
            #expect(MailMessage.Mailbox.parse(bad) == nil, "\(bad)")
        }
        let quoted = Self.text(try Self.message(fromName: #"Say "hi" \ bye"#).rendered())
        #expect(quoted.contains(#"From: "Say \"hi\" \\ bye" <noreply@example.com>"#))
    }

    @Test("SMTP's dot-stuffing: a line that begins with a dot gets one more, and the message ends with the dot line")
    func dotStuffing() throws {
        let data = Self.text(try Self.message(text: ".\n..two\nmiddle . dot\n.last").smtpData())
        let body = String(data[try #require(data.range(of: "\r\n\r\n")).upperBound...])
        #expect(body == "..\r\n...two\r\nmiddle . dot\r\n..last\r\n.\r\n")
        #expect(Self.text(MailMessage.dotStuffed(Array(".a\r\nb".utf8))) == "..a\r\nb\r\n.\r\n")
        #expect(Self.text(MailMessage.dotStuffed(Array("a\r\n".utf8))) == "a\r\n.\r\n")
    }

    @Test("quoted-printable: text beyond ASCII, =, trailing spaces and long lines, at most 76 characters a line")
    func quotedPrintable() throws {
        let text = "Grüße = 100% \nend with space \n" + String(repeating: "x", count: 200) + "\n\r\nlast"
        let encoded = Self.text(MailMessage.quotedPrintable(text))
        #expect(encoded.hasPrefix("Gr=C3=BC=C3=9Fe =3D 100%=20\r\nend with space=20\r\n"))
        for line in encoded.components(separatedBy: "\r\n") { #expect(line.count <= 76, "\(line)") }
        // Decoding it back gives the text (soft breaks removed, =XX as bytes).
        var bytes: [UInt8] = []
        let joined = Array(encoded.replacingOccurrences(of: "=\r\n", with: "").utf8)
        var index = 0
        while index < joined.count {
            if joined[index] == UInt8(ascii: "="), let byte = UInt8(String(decoding: joined[(index + 1)...(index + 2)], as: UTF8.self), radix: 16) {
                bytes.append(byte)
                index += 3
            } else {
                bytes.append(joined[index])
                index += 1
            }
        }
        #expect(String(decoding: bytes, as: UTF8.self) == text.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n") + "\r\n")
    }

    @Test("a subject or a name beyond ASCII is written as encoded words, folded, never splitting a character")
    func encodedWords() throws {
        let subject = "Bestätigen Sie Ihre E-Mail-Adresse für 😀 " + String(repeating: "ü", count: 40)
        let rendered = Self.text(try Self.message(subject: subject, fromName: "Zoë").rendered())
        let header = try #require(rendered.components(separatedBy: "\r\n\r\n").first)
        #expect(header.contains("From: =?UTF-8?B?Wm/Dqw==?= <noreply@example.com>"))
        let lines = header.components(separatedBy: "\r\n")
        let start = try #require(lines.firstIndex { $0.hasPrefix("Subject: ") })
        var words = [String(lines[start].dropFirst("Subject: ".count))]
        for line in lines[(start + 1)...] where line.hasPrefix(" ") { words.append(String(line.dropFirst())) }
        #expect(words.count > 1)
        var decoded = Data()
        for word in words {
            #expect(word.count <= 75)
            let inner = try #require(word.wholeMatch(of: /=\?UTF-8\?B\?([A-Za-z0-9+\/=]+)\?=/)?.1)
            let part = try #require(Data(base64Encoded: String(inner)))
            #expect(String(data: part, encoding: .utf8) != nil, "each word is whole characters")
            decoded += part
        }
        #expect(String(data: decoded, encoding: .utf8) == subject)
    }

    @Test("the SMTP URL: smtp://, smtp+starttls:// or smtps://, a host, a port, a user and password never shown")
    func smtpURL() throws {
        let plain = try SMTPServer(parsing: "smtp://127.0.0.1:2525")
        #expect(plain.host == "127.0.0.1" && plain.port == 2525 && plain.security == .startTLSWhenOffered && plain.isLoopback && plain.username == nil)
        let secure = try SMTPServer(parsing: "smtps://mailer%40example.com:p%40ss@mail.example.com")
        #expect(secure.port == 465 && secure.security == .implicitTLS && !secure.isLoopback)
        #expect(secure.username == "mailer@example.com" && secure.password == "p@ss")
        #expect(secure.description == "smtps://mailer@example.com:***@mail.example.com:465")
        #expect(try SMTPServer(parsing: "smtp://[::1]").host == "::1")
        let required = try SMTPServer(parsing: "SMTP+STARTTLS://mailer:pw@127.0.0.1")
        #expect(required.security == .startTLSRequired && required.port == 25 && required.isLoopback)
        #expect(required.description == "smtp+starttls://mailer:***@127.0.0.1:25")
        #expect(try SMTPServer(parsing: "smtp+starttls://mail.example.com:587").port == 587)
        #expect(try SMTPServer(parsing: "smtp://mail.example.com").port == 25)
        for bad in ["http://mail.example.com", "smtp://", "smtp://mail.example.com/path", "smtp://mail.example.com?x=1", "smtp://:pw@host", "mail.example.com:25", "smtp+tls://mail.example.com", "smtps+starttls://mail.example.com"] {
            #expect(throws: ServerConfiguration.Invalid.self, "\(bad)") { try SMTPServer(parsing: bad) }
        }
        do {
            _ = try SMTPServer(parsing: "ftp://user:secret@host")
        } catch {
            #expect(!error.description.contains("secret"), "a refused URL's password is not repeated")
        }
    }

    @Test("the configuration: --recovery-email needs --smtp-url; the sender must be an address")
    func configuration() throws {
        var configuration = ServerConfiguration()
        configuration.recoveryEmail = true
        #expect(throws: ServerConfiguration.Invalid.self) { try configuration.validate() }
        configuration.smtpURL = "smtp://127.0.0.1:25"
        try configuration.validate()
        #expect(configuration.mailSender == .init(name: "Latchkey", address: try Self.address("noreply@localhost")))
        configuration.smtpFrom = "Evil\r\nBcc: x <a@example.com>"
        #expect(throws: ServerConfiguration.Invalid.self) { try configuration.validate() }
        configuration.smtpFrom = "Example <noreply@example.com>"
        try configuration.validate()
        configuration.smtpURL = "smtp://"
        #expect(throws: ServerConfiguration.Invalid.self) { try configuration.validate() }
    }
}

extension Array {
    /// The two elements of a two-element array.
    fileprivate var twoParts: (Element, Element)? { count == 2 ? (self[0], self[1]) : nil }
}
