import WebAuthn

/// The `claims` request parameter (OpenID Connect Core §5.5) for the standard claims Latchkey has: a
/// client may ask for `name`, `preferred_username`, `email`, `email_verified` or `groups` by name, in
/// `userinfo` or `id_token`, instead of by scope. Latchkey grants the scope that releases each claim
/// asked for (so the consent screen names it, and the person allows it as any scope), when the client may
/// have that scope; the claims then come in both the id_token and UserInfo, as the scope's do. Claims it
/// does not know, and `essential`, `value` and `values`, are ignored as §5.5.1 allows.
///
/// The parameter is bounded before it is parsed (4 KiB, then the strict parser's depth gate), and a
/// malformed one is `invalid_request` sent back to the client — it changes nothing and consumes nothing.
enum OIDCClaimsParameter {
    static let maxBytes = 4096
    /// Requested claims per member (`userinfo`, `id_token`) that are looked at; more is refused.
    static let maxClaims = 64
    /// The scope that releases each standard claim (Core §5.4).
    static let scopeOf: [String: String] = [
        "name": OIDCScope.profile, "preferred_username": OIDCScope.profile, "email": OIDCScope.email,
        "email_verified": OIDCScope.email, "groups": OIDCScope.groups,
    ]

    /// Why a parameter is malformed: the rest of a sentence.
    struct Malformed: Error {
        let reason: String
    }

    /// The scopes the claims in `text` call for.
    static func scopes(_ text: String) throws(Malformed) -> Set<String> {
        guard text.utf8.count <= maxBytes else { throw Malformed(reason: "claims is longer than \(maxBytes) bytes") }
        guard let parsed = try? JSONValue.parse(Array(text.utf8)), case .object(let document) = parsed else {
            throw Malformed(reason: "claims must be a JSON object")
        }
        var scopes: Set<String> = []
        for member in ["userinfo", "id_token"] {
            guard let value = document[member] else { continue }
            guard case .object(let requested) = value else { throw Malformed(reason: "claims.\(member) must be a JSON object") }
            guard requested.members.count <= maxClaims else { throw Malformed(reason: "claims.\(member) asks for more than \(maxClaims) claims") }
            for (name, request) in requested.members {
                switch request {
                case .null, .object: break
                default: throw Malformed(reason: "each claim in claims.\(member) must be null or an object")
                }
                if let scope = scopeOf[name] { scopes.insert(scope) }
            }
        }
        return scopes
    }
}
