import Foundation

/// Where Latchkey hands its mail over (`--smtp-url`): `smtp://[user[:password]@]host[:port]` (port 25 by
/// default; STARTTLS when the server offers it, except on a loopback address) or
/// `smtps://…` (TLS from the first byte, port 465). A password is only ever sent over TLS, or to a relay
/// on this machine. Like the database URL, a URL holding a password is better given in the variable
/// (`LATCHKEY_SMTP_URL`) than on the command line; `description` never shows it.
struct SMTPServer: Sendable, Equatable, CustomStringConvertible {
    enum Security: String, Sendable {
        /// `smtp://`: plain, upgraded with STARTTLS when offered (and not on loopback).
        case startTLS
        /// `smtps://`: TLS from the start.
        case implicitTLS
    }

    let host: String
    let port: Int
    let security: Security
    let username: String?
    let password: String?

    init(parsing text: String) throws(ServerConfiguration.Invalid) {
        guard let url = URLComponents(string: text), let scheme = url.scheme?.lowercased(), scheme == "smtp" || scheme == "smtps",
              var host = url.host, !host.isEmpty, url.path.isEmpty || url.path == "/", url.query == nil, url.fragment == nil
        else {
            throw ServerConfiguration.Invalid(description: "the SMTP URL must look like smtp://[user:password@]host[:port] or smtps://…, not \(Self.redacted(text))")
        }
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        self.host = host
        security = scheme == "smtps" ? .implicitTLS : .startTLS
        port = url.port ?? (scheme == "smtps" ? 465 : 25)
        guard (1...65535).contains(port) else { throw ServerConfiguration.Invalid(description: "the SMTP port must be between 1 and 65535, not \(port)") }
        username = url.user.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding ?? $0 }
        password = url.password.map { $0.removingPercentEncoding ?? $0 }
        if password != nil, username == nil {
            throw ServerConfiguration.Invalid(description: "the SMTP URL has a password but no user name (smtp://user:password@host)")
        }
    }

    /// A relay on this machine: the mail never crosses a network, so STARTTLS is not asked for and a
    /// password may go in clear.
    var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    var description: String {
        let scheme = security == .implicitTLS ? "smtps" : "smtp"
        let user = username.map { "\($0)\(password == nil ? "" : ":***")@" } ?? ""
        let shownHost = host.contains(":") ? "[\(host)]" : host
        return "\(scheme)://\(user)\(shownHost):\(port)"
    }

    /// A URL for an error message, without what could be a password.
    private static func redacted(_ text: String) -> String {
        guard let at = text.lastIndex(of: "@"), let scheme = text.range(of: "://") else { return "\"\(text)\"" }
        return "\"\(text[..<scheme.upperBound])***\(text[at...])\""
    }
}
