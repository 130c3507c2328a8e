import Hummingbird

/// The web page's copy of the session token: HttpOnly so no script can read it, SameSite=Strict so no
/// other site can send it, Secure when the page is served over https. Over https it also carries the
/// `__Host-` prefix, which browsers accept only from a secure origin with `Path=/` and no `Domain`: a
/// sibling subdomain or a man in the middle on plain http cannot plant or overwrite it.
///
/// With `--cookie-domain` (`domain`, for forward authentication: one sign-in for every app under the
/// domain) the cookie carries `Domain=` so that the browser sends it to those apps too, and over https
/// its name has the `__Secure-` prefix instead, the one `Domain=` allows.
enum SessionCookie {
    static func name(secure: Bool, domain: String?) -> String {
        secure ? (domain == nil ? "__Host-latchkey_session" : "__Secure-latchkey_session") : "latchkey_session"
    }

    static func set(_ token: SessionToken, maxAge: Int, secure: Bool, domain: String?) -> String {
        "\(name(secure: secure, domain: domain))=\(token.value); Path=/; Max-Age=\(maxAge)" + attributes(secure: secure, domain: domain)
    }

    static func clear(secure: Bool, domain: String?) -> String {
        "\(name(secure: secure, domain: domain))=; Path=/; Max-Age=0" + attributes(secure: secure, domain: domain)
    }

    private static func attributes(secure: Bool, domain: String?) -> String {
        (domain.map { "; Domain=\($0)" } ?? "") + "; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// The token from a `Cookie` header, if the session cookie (under the name for `secure` and `domain`) is among its pairs.
    static func token(in header: String?, secure: Bool, domain: String?) -> String? {
        guard let header else { return nil }
        let prefix = name(secure: secure, domain: domain) + "="
        for pair in header.split(separator: ";") {
            let trimmed = pair.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix(prefix) { return String(trimmed.dropFirst(prefix.count)) }
        }
        return nil
    }
}
