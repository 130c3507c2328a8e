import Foundation

/// What an OpenID Connect issuer may be (Discovery §3, §4.3): an absolute https URL without query or
/// fragment — relying parties compare it to the `iss` of every id_token and of the authorization response
/// (RFC 9207) as a string — or, for trying things on one machine, http on a loopback host.
enum OIDCIssuerRules {
    /// nil when `issuer` may be used; else the rest of a sentence saying why not.
    static func problem(_ issuer: String) -> String? {
        guard let url = URLComponents(string: issuer), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty else {
            return "is not an absolute URL"
        }
        if url.query != nil || url.fragment != nil { return "must have no query and no fragment" }
        if url.user != nil || url.password != nil { return "must not hold a user name or password" }
        if scheme == "https" { return nil }
        if scheme == "http", isLoopback(host) { return nil }
        return "must be an https URL (http only on localhost)"
    }

    /// `localhost`, `127.0.0.1` or `::1` (RFC 8252 §8.3): addresses that never leave the machine.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return ["localhost", "127.0.0.1", "::1"].contains(bare.lowercased())
    }
}
