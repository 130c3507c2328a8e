import Hummingbird

/// The web page's copy of the session token: HttpOnly so no script can read it, SameSite=Strict so no
/// other site can send it, Secure when the page is served over https.
enum SessionCookie {
    static let name = "latchkey_session"

    static func set(_ token: SessionToken, maxAge: Int, secure: Bool) -> String {
        "\(name)=\(token.value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    static func clear(secure: Bool) -> String {
        "\(name)=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// The token from a `Cookie` header, if the session cookie is among its pairs.
    static func token(in header: String?) -> String? {
        guard let header else { return nil }
        for pair in header.split(separator: ";") {
            let trimmed = pair.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix(name + "=") { return String(trimmed.dropFirst(name.count + 1)) }
        }
        return nil
    }
}

import Foundation
