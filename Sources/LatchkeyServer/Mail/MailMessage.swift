import Foundation

/// One plain-text email as Latchkey sends it: RFC 5322 headers and a UTF-8 body in quoted-printable, every
/// line ending in CRLF. A header value with a line break (or any other control character) is refused, not
/// cleaned: a value that could add a header ("…\r\nBcc: …") means a bug upstream, and no mail goes out.
/// A header with text beyond ASCII is written as RFC 2047 encoded words. `smtpData` adds SMTP's
/// dot-stuffing and the final `.` line.
struct MailMessage: Sendable {
    /// `"Name" <address>`, or the address alone.
    struct Mailbox: Sendable, Equatable {
        let name: String?
        let address: EmailAddress

        /// `Name <address>` or a bare address (`--smtp-from`); nil when it is neither, or the name has a
        /// control character or an angle bracket.
        static func parse(_ text: String) -> Mailbox? {
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasSuffix(">"), let open = trimmed.lastIndex(of: "<") else {
                guard let address = try? EmailAddress.parse(trimmed).get() else { return nil }
                return Mailbox(name: nil, address: address)
            }
            var name = trimmed[..<open].trimmingCharacters(in: .whitespaces)
            if name.count >= 2, name.hasPrefix("\""), name.hasSuffix("\"") { name = String(name.dropFirst().dropLast()) }
            guard let address = try? EmailAddress.parse(String(trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)])).get(),
                  !name.contains(where: { $0 == "<" || $0 == ">" || $0 == "\"" }), (try? MailMessage.checked(name, header: "From")) != nil
            else { return nil }
            return Mailbox(name: name.isEmpty ? nil : name, address: address)
        }
    }

    struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        let header: String
        var description: String { "the mail header \(header) would contain a line break or another control character" }
    }

    let from: Mailbox
    let to: EmailAddress
    let subject: String
    let text: String
    var date: Date = Date()
    /// The Message-ID without its angle brackets: random, at the sender's domain.
    var messageId: String

    init(from: Mailbox, to: EmailAddress, subject: String, text: String, date: Date = Date()) {
        self.from = from
        self.to = to
        self.subject = subject
        self.text = text
        self.date = date
        let random = RandomBytes.make(16).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
        self.messageId = "\(random)@\(from.address.domain)"
    }

    /// The message as it is stored: headers, a blank line, the body; CRLF line ends throughout.
    func rendered() throws(Invalid) -> [UInt8] {
        let headers: [(String, String)] = [
            ("Date", Self.dateText(date)),
            ("From", try Self.mailboxText(from, header: "From")),
            ("To", to.value),
            ("Subject", try Self.unstructured(subject, header: "Subject")),
            ("Message-ID", "<\(try Self.checked(messageId, header: "Message-ID"))>"),
            ("MIME-Version", "1.0"),
            ("Content-Type", "text/plain; charset=utf-8"),
            ("Content-Transfer-Encoding", "quoted-printable"),
            // RFC 3834: written by a program, so vacation responders and the like stay quiet.
            ("Auto-Submitted", "auto-generated"),
        ]
        var lines = headers.map { "\($0.0): \($0.1)" }
        lines.append("")
        var bytes = Array(lines.joined(separator: "\r\n").utf8)
        bytes += Array("\r\n".utf8)
        bytes += Self.quotedPrintable(text)
        return bytes
    }

    /// What follows SMTP's `DATA`: the message with every line that begins with a dot given one more
    /// (RFC 5321 §4.5.2), then the `.` line that ends it.
    func smtpData() throws(Invalid) -> [UInt8] {
        Self.dotStuffed(try rendered())
    }

    static func dotStuffed(_ message: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(message.count + 8)
        var atLineStart = true
        for byte in message {
            if atLineStart, byte == UInt8(ascii: ".") { out.append(UInt8(ascii: ".")) }
            out.append(byte)
            atLineStart = byte == UInt8(ascii: "\n")
        }
        if !(out.count >= 2 && out[out.count - 2] == UInt8(ascii: "\r") && out[out.count - 1] == UInt8(ascii: "\n")) {
            out += Array("\r\n".utf8)
        }
        return out + Array(".\r\n".utf8)
    }

    // MARK: Headers

    /// The value itself when it has no control character (a tab is one too: none of ours needs it).
    static func checked(_ value: String, header: String) throws(Invalid) -> String {
        guard !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || $0.properties.generalCategory == .lineSeparator
            || $0.properties.generalCategory == .paragraphSeparator || $0.value == 0x85 })
        else { throw Invalid(header: header) }
        return value
    }

    /// Free text (a subject): as it is when it is short ASCII, else as encoded words, folded.
    static func unstructured(_ value: String, header: String) throws(Invalid) -> String {
        let value = try checked(value, header: header)
        if value.utf8.allSatisfy({ $0 < 0x80 }), value.utf8.count <= 70 { return value }
        return encodedWords(value)
    }

    static func mailboxText(_ mailbox: Mailbox, header: String) throws(Invalid) -> String {
        guard let name = mailbox.name, !name.isEmpty else { return mailbox.address.value }
        let checked = try checked(name, header: header)
        let display = checked.utf8.allSatisfy({ $0 < 0x80 }) && checked.utf8.count <= 60
            ? "\"" + checked.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
            : encodedWords(checked)
        return "\(display) <\(mailbox.address.value)>"
    }

    /// RFC 2047 `=?UTF-8?B?…?=` words of at most 45 bytes of text each (60 of base64, 72 in all), never
    /// splitting a character, folded onto continuation lines.
    static func encodedWords(_ value: String) -> String {
        var words: [String] = []
        var chunk: [UInt8] = []
        for character in value {
            let bytes = Array(String(character).utf8)
            if chunk.count + bytes.count > 45, !chunk.isEmpty {
                words.append("=?UTF-8?B?\(Data(chunk).base64EncodedString())?=")
                chunk = []
            }
            chunk += bytes
        }
        if !chunk.isEmpty || words.isEmpty { words.append("=?UTF-8?B?\(Data(chunk).base64EncodedString())?=") }
        return words.joined(separator: "\r\n ")
    }

    /// RFC 5322's date: `Tue, 01 Jul 2025 10:00:00 +0000`, in UTC, in English whatever the locale.
    static func dateText(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second, .weekday], from: date)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let two = { (n: Int?) in String(n ?? 0).leftPadded(to: 2) }
        return "\(days[((parts.weekday ?? 1) - 1) % 7]), \(two(parts.day)) \(months[((parts.month ?? 1) - 1) % 12]) \(parts.year ?? 1970) "
            + "\(two(parts.hour)):\(two(parts.minute)):\(two(parts.second)) +0000"
    }

    // MARK: Body

    /// The text as quoted-printable (RFC 2045 §6.7): each line of the text (a line feed, with or without
    /// a carriage return before it, ends one) becomes lines of at most 76 characters, with `=` soft breaks.
    static func quotedPrintable(_ text: String) -> [UInt8] {
        var out: [UInt8] = []
        let lines = text.replacingOccurrences(of: "\r\n", with: "\n").split(separator: "\n", omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() {
            var column = 0
            let bytes = Array(line.utf8)
            for (position, byte) in bytes.enumerated() {
                let last = position == bytes.count - 1
                let literal = (byte >= 33 && byte <= 126 && byte != UInt8(ascii: "=")) || ((byte == 0x20 || byte == 0x09) && !last)
                let piece: [UInt8] = literal ? [byte] : Array("=\(String(byte, radix: 16, uppercase: true).leftPadded(to: 2))".utf8)
                // A soft break leaves room for its own "=" within 76 (the last piece of a line needs none).
                if column + piece.count > (last ? 76 : 75) {
                    out += Array("=\r\n".utf8)
                    column = 0
                }
                out += piece
                column += piece.count
            }
            if index < lines.count - 1 { out += Array("\r\n".utf8) }
        }
        return out + Array("\r\n".utf8)
    }
}

extension String {
    /// The string with `0`s before it up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
