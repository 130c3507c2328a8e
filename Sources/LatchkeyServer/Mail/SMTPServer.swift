import Foundation

/// Where Latchkey hands its mail over (`--smtp-url`), in one of three schemes (`Security`):
/// `smtp://[user[:password]@]host[:port]` (port 25 by default; STARTTLS when the server offers it, except
/// on a loopback address), `smtp+starttls://…` (port 25 as well; STARTTLS required, even on loopback) or
/// `smtps://…` (TLS from the first byte, port 465). A password is only ever sent over TLS, or to a relay
/// on this machine. Like the database URL, a URL holding a password is better given in the variable
/// (`LATCHKEY_SMTP_URL`) than on the command line; `description` never shows it.
struct SMTPServer: Sendable, Equatable, CustomStringConvertible {
    /// How the connection gets its TLS; the raw value is the URL's scheme.
    enum Security: String, Sendable {
        /// `smtp://`: plain, upgraded with STARTTLS when offered (and not on loopback). Opportunistic: an
        /// attacker on the network who removes STARTTLS from the server's EHLO reply gets the mail in clear.
        case startTLSWhenOffered = "smtp"
        /// `smtp+starttls://`: STARTTLS asked of every relay, loopback included, and a relay that does not
        /// offer it gets no mail — never a fallback to plain text, so an attacker who strips the offer
        /// stops the mail instead of reading it. For a relay that takes mail only over TLS, wherever it is.
        case startTLSRequired = "smtp+starttls"
        /// `smtps://`: TLS from the start.
        case implicitTLS = "smtps"

        /// The port when the URL names none: 465 for smtps, else 25 (SMTP's own, as `smtp://`).
        var defaultPort: Int { self == .implicitTLS ? 465 : 25 }
    }

    let host: String
    let port: Int
    let security: Security
    let username: String?
    let password: String?

    init(parsing text: String) throws(ServerConfiguration.Invalid) {
        guard let url = URLComponents(string: text), let scheme = url.scheme, let security = Security(rawValue: scheme.lowercased()),
              var host = url.host, !host.isEmpty, url.path.isEmpty || url.path == "/", url.query == nil, url.fragment == nil
        else {
            throw ServerConfiguration.Invalid(
                description: "the SMTP URL must look like smtp://[user:password@]host[:port], smtp+starttls://… or smtps://…, not \(Self.redacted(text))")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.host = host
        self.security = security
        port = url.port ?? security.defaultPort
        guard (1...65535).contains(port) else { throw ServerConfiguration.Invalid(description: "the SMTP port must be between 1 and 65535, not \(port)") }
        username = url.user.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding ?? $0 }
        password = url.password.map { $0.removingPercentEncoding ?? $0 }
        if password != nil, username == nil {
            throw ServerConfiguration.Invalid(description: "the SMTP URL has a password but no user name (smtp://user:password@host)")
        }
    }

    /// A relay on this machine: the mail never crosses a network, so smtp:// does not ask it for STARTTLS
    /// (smtp+starttls:// does) and a password may go to it in clear.
    var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    var description: String {
        let user = username.map { "\($0)\(password == nil ? "" : ":***")@" } ?? ""
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(security.rawValue)://\(user)\(shownHost):\(port)"
    }

    /// A URL for an error message, without what could be a password.
    private static func redacted(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@"), let scheme = text.range(of: "://") else { return "\"\(text)\"" }
        return "\"\(text[..<scheme.upperBound])***\(text[at...])\""
    }
}
