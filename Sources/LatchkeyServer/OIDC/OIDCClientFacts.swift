import Foundation

/// What routes that must not ask the database on every request need to know about the registered
/// clients as a whole: whether any of them wants RS256 id_tokens (the JWKS then publishes RSA keys:
/// `AccessTokenIssuer.jwks()`) and the browser origins of their redirect URIs (the origins whose
/// scripts may call the token, UserInfo and revocation endpoints: `OIDCCrossOrigin`).
///
/// Read from `oidc_clients` at most once per `lifetime` (30 s). A change this instance makes — the admin
/// API, through `AdminService` — calls `forget()`, so it is seen here at once; a change by `latchkey
/// admin` (another process) or by another instance of a cluster sharing PostgreSQL is seen within the
/// lifetime. Nothing here grants anything on its own: the token endpoint still authenticates the client,
/// and a signer that wants RSA keys makes them whatever this says.
actor OIDCClientFacts {
    struct Facts: Sendable, Equatable {
        var anyRS256 = false
        /// `scheme://host[:port]` of every http(s) redirect URI, lower-cased, default ports left out (as a
        /// browser's `Origin` header has it).
        var webOrigins: Set<String> = []
    }

    static let lifetime: TimeInterval = 30

    private let store: Store
    private let now: @Sendable () -> Date
    private var remembered: (facts: Facts, at: Date)?

    init(store: Store, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.now = now
    }

    /// The facts, from memory when they were read less than `lifetime` ago.
    func facts() async throws -> Facts {
        let date = now()
        if let remembered, date >= remembered.at, date.timeIntervalSince(remembered.at) < Self.lifetime { return remembered.facts }
        var facts = Facts()
        for client in try await store.oidcClients.all() {
            if client.idTokenAlgorithm == "RS256" { facts.anyRS256 = true }
            facts.webOrigins.formUnion(client.redirectURIs.compactMap(Self.webOrigin(of:)))
        }
        remembered = (facts, date)
        return facts
    }

    /// A client was created, changed or removed here: read them again next time.
    func forget() {
        remembered = nil
    }

    /// The origin a page at `uri` has (RFC 6454 §4), for `http` and `https` URIs; nil for a native app's
    /// scheme (no browser sends its requests). The redirect URI rules (`OIDCClientRules`) already refused
    /// user info and anything but RFC 3986 characters.
    static func webOrigin(of uri: String) -> String? {
        let lowered = uri.lowercased()
        for (scheme, port) in [("https://", ":443"), ("http://", ":80")] where lowered.hasPrefix(scheme) {
            let rest = lowered.dropFirst(scheme.count)
            var authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
            guard !authority.isEmpty, !authority.contains("@") else { return nil }
            if authority.hasSuffix(port) { authority = authority.dropLast(port.count) }
            return scheme + authority
        }
        return nil
    }
}
