/// One reply of an SMTP server (RFC 5321 §4.2): a three-digit code and its text lines (several for a
/// multi-line reply such as EHLO's list of extensions).
struct SMTPReply: Sendable, Equatable, CustomStringConvertible {
    let code: Int
    let lines: [String]

    var isPositive: Bool { (200..<400).contains(code) }

    /// Whether EHLO's reply lists `keyword` (`STARTTLS`, `AUTH`), ignoring case; the first line is the
    /// greeting, not an extension.
    func offers(_ keyword: String) -> Bool {
        extensionParameters(keyword) != nil
    }

    /// The parameters after an extension's keyword (`AUTH PLAIN LOGIN` → ["PLAIN", "LOGIN"]); nil when
    /// it is not offered.
    func extensionParameters(_ keyword: String) -> [String]? {
        for line in lines.dropFirst() {
            let words = line.split(separator: " ").map { $0.uppercased() }
            if words.first == keyword.uppercased() { return Array(words.dropFirst()) }
        }
        return nil
    }

    /// For a log line: the code and the first line, cut short (a server's text is not ours to repeat whole).
    var description: String { "\(code) \(String((lines.first ?? "").prefix(120)))" }
}
