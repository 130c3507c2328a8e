import Foundation

/// Whether a redirect URI in a request is one the client registered: compared as strings, exactly (RFC
/// 9700 §4.1.3 — no prefixes, no added paths or queries, no case folding), with one exception. A native
/// app of a public client listens on a loopback port the system gives it at the time, so for `http` on
/// `127.0.0.1`, `[::1]` or `localhost` any port matches (RFC 8252 §7.3); everything else about the URI
/// must still be the same.
enum OIDCRedirectMatch {
    static func isRegistered(_ requested: String, for client: OIDCClientRecord) -> Bool {
        if client.redirectURIs.contains(requested) { return true }
        guard client.isPublic, let asked = loopback(requested) else { return false }
        return client.redirectURIs.contains { loopback($0) == asked }
    }

    /// The URI without its port, when it is an http URI on a loopback host with nothing unusual in it.
    private static func loopback(_ uri: String) -> String? {
        guard var parts = URLComponents(string: uri), parts.scheme == "http", let host = parts.host,
              OIDCIssuerRules.isLoopback(host), parts.user == nil, parts.password == nil, parts.fragment == nil
        else { return nil }
        parts.port = nil
        return parts.string
    }
}
