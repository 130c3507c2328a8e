import Hummingbird

/// The web page's copy of the session token: HttpOnly so no script can read it, SameSite=Strict so no
/// other site can send it, Secure when the page is served over https. Over https it also carries the
/// `__Host-` prefix, which browsers accept only from a secure origin with `Path=/` and no `Domain`: a
/// sibling subdomain or a man in the middle on plain http cannot plant or overwrite it.
enum SessionCookie {
    static func name(secure: Bool) -> String { secure ? "__Host-latchkey_session" : "latchkey_session" }

    static func set(_ token: SessionToken, maxAge: Int, secure: Bool) -> String {
        "\(name(secure: secure))=\(token.value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    static func clear(secure: Bool) -> String {
        "\(name(secure: secure))=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// The token from a `Cookie` header, if the session cookie (under the name for `secure`) is among its pairs.
    static func token(in header: String?, secure: Bool) -> String? {
        guard let header else { return nil }
        let prefix = name(secure: secure) + "="
        for pair in header.split(separator: ";") {
            let trimmed = pair.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix(prefix) { return String(trimmed.dropFirst(prefix.count)) }
        }
        return nil
    }
}
