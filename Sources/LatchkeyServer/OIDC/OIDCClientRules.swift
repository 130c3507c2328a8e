import Foundation
import LatchkeyAPI
import WebAuthn

/// What an OpenID Connect client an operator registers may be: the one place its rules live, for the
/// admin API and `latchkey admin clients` alike. Each broken rule throws its own code (`ErrorCode`) with
/// a sentence naming the field, so an operator learns exactly what to change.
enum OIDCClientRules {
    static let idLength = 3...64
    static let nameCharacters = 100
    /// A redirect URI longer than this is no app's callback; the bound keeps a row (and every
    /// authorization request's comparison) small.
    static let uriBytes = 2048
    static let uriCount = 32
    static let groupCount = 64
    static let algorithms = ["ES256", "RS256"]
    static let defaultAlgorithm = "ES256"
    /// What a client may ask for when the operator does not say: everything but refresh tokens, which
    /// an operator grants on purpose (`--scope offline_access`).
    static let defaultScopes = [OIDCScope.openid, OIDCScope.profile, OIDCScope.email, OIDCScope.groups]
    /// A client secret says what it is, so that one pasted in the wrong place (a log, a chat) is
    /// recognised, and secret scanners can be taught the prefix.
    static let secretPrefix = "lk_client_"

    // MARK: Ids and secrets

    /// A chosen client id: `[A-Za-z0-9._-]{3,64}` (it appears in URLs, logs and app settings as it is).
    static func clientId(_ value: String) throws(APIError) -> String {
        let bytes = Array(value.utf8)
        guard idLength.contains(bytes.count), bytes.allSatisfy(InputRules.isNameByte) else {
            throw APIError(.clientIdInvalid, "The client id (id, --id) must be 3 to 64 letters A-Z or a-z, digits, dots, underscores or hyphens.")
        }
        return value
    }

    /// A new client id: 16 random bytes as 22 characters of base64url. One beginning with "-" is drawn
    /// again, so that the id can follow `latchkey admin clients show` without being read as options.
    static func generatedId() -> String {
        while true {
            let id = Base64URL.encode(RandomBytes.make(16))
            if !id.hasPrefix("-") { return id }
        }
    }

    /// A new client secret: `lk_client_` and 32 random bytes as 43 characters of base64url. Only its
    /// SHA-256 is stored (256 random bits need no slow hash).
    static func generatedSecret() -> String {
        secretPrefix + Base64URL.encode(RandomBytes.make(32))
    }

    // MARK: Fields

    /// 1 to 100 characters on one line, trimmed; no control characters or bidirectional overrides (the
    /// name is what the consent screen shows the person).
    static func name(_ value: String) throws(APIError) -> String {
        let trimmed = value.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty, trimmed.utf8.count <= 4 * nameCharacters, trimmed.count <= nameCharacters else {
            throw APIError(.clientNameInvalid, "The client's name (name) must be 1 to \(nameCharacters) characters.")
        }
        guard !trimmed.unicodeScalars.contains(where: {
            $0.properties.generalCategory == .control || (0x202A...0x202E).contains($0.value) || (0x2066...0x2069).contains($0.value)
        }) else {
            throw APIError(.clientNameInvalid, "The client's name (name) must not contain control characters or bidirectional overrides.")
        }
        return trimmed
    }

    /// The redirect URIs: at least one, each allowed (`problem(uri:)`), each once.
    static func redirectURIs(_ values: [String]) throws(APIError) -> [String] {
        guard !values.isEmpty else {
            throw APIError(.redirectURIRequired, "A client needs at least one redirect URI (redirectUris, --redirect-uri).")
        }
        return try uris(values, field: "redirectUris", what: "redirect URI", code: .redirectURIInvalid)
    }

    /// The post-logout redirect URIs (RP-Initiated Logout §3): the same rules, and none at all is fine.
    static func postLogoutURIs(_ values: [String]) throws(APIError) -> [String] {
        try uris(values, field: "postLogoutUris", what: "post-logout redirect URI", code: .postLogoutURIInvalid)
    }

    /// Where a client's logout tokens are POSTed (Back-Channel Logout 1.0 §2.2): "" or nil is none;
    /// otherwise one URI by the redirect URIs' rules (`problem(uri:)`: absolute, no fragment, no user
    /// name, http only on a loopback host) whose scheme is https or http — a server, not an app's
    /// private-use scheme. Where it points is checked again before every delivery (`WebhookAddressPolicy`).
    /// Where a `private_key_jwt` client publishes its keys: https (or http on a loopback host, for tests
    /// and a key server on the same machine), as a back-channel logout URI; nil for "" or none.
    static func jwksURI(_ value: String?) throws(APIError) -> String? {
        guard let value, !value.isEmpty else { return nil }
        let field = "The keys' URL \(quoted(value)) (jwksUri, --jwks-uri)"
        if let problem = problem(uri: value) { throw APIError(.jwksInvalid, "\(field) \(problem).") }
        guard let scheme = URLComponents(string: value)?.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            throw APIError(.jwksInvalid, "\(field) must be an https URL (Latchkey's server fetches the keys from it).")
        }
        return value
    }

    static func backchannelLogoutURI(_ value: String?) throws(APIError) -> String? {
        guard let value, !value.isEmpty else { return nil }
        let field = "The back-channel logout URI \(quoted(value)) (backchannelLogoutUri, --backchannel-logout-uri)"
        if let problem = problem(uri: value) { throw APIError(.backchannelLogoutURIInvalid, "\(field) \(problem).") }
        guard let scheme = URLComponents(string: value)?.scheme?.lowercased(), scheme == "https" || scheme == "http" else {
            throw APIError(.backchannelLogoutURIInvalid, "\(field) must be an https URL (Latchkey's server POSTs to it).")
        }
        return value
    }

    private static func uris(_ values: [String], field: String, what: String, code: ErrorCode) throws(APIError) -> [String] {
        guard values.count <= uriCount else { throw APIError(code, "A client has at most \(uriCount) of \(field).") }
        var kept: [String] = []
        for value in values {
            if let problem = problem(uri: value) {
                throw APIError(code, "The \(what) \(quoted(value)) (\(field)) \(problem).")
            }
            if !kept.contains(value) { kept.append(value) }
        }
        return kept
    }

    /// Why `uri` cannot be a redirect URI (the rest of a sentence), or nil when it can: absolute; only
    /// the characters RFC 3986 allows in a URI (no spaces: the list is stored space-separated, and an
    /// IRI must be percent-encoded); no fragment (RFC 6749 §3.1.2); no user name or password (they make
    /// a URI read as another host); and `https`, a private-use scheme of a native app (RFC 8252 §7.1,
    /// `app.immich:///oauth-callback`), or `http` only on a loopback host — `localhost`, `127.0.0.1`
    /// or `[::1]` (RFC 8252 §7.3, §8.3). Schemes a browser runs or reads locally (`javascript:`,
    /// `data:`, `file:` …) are never anyone's callback.
    static func problem(uri: String) -> String? {
        guard !uri.isEmpty, uri.utf8.count <= uriBytes else { return "must be 1 to \(uriBytes) bytes long" }
        guard uri.utf8.allSatisfy(isURIByte) else {
            return "holds a character a URI cannot (spaces and other characters must be percent-encoded)"
        }
        if uri.contains("#") { return "must not have a fragment (#…)" }
        guard let parts = URLComponents(string: uri), let scheme = parts.scheme?.lowercased(), !scheme.isEmpty else {
            return "is not an absolute URI (scheme:…)"
        }
        if parts.percentEncodedUser != nil || parts.percentEncodedPassword != nil || authority(of: uri, scheme: scheme).contains("@") {
            return "must not hold a user name or password (…@)"
        }
        switch scheme {
        case "https":
            guard let host = parts.host, !host.isEmpty else { return "must name a host (https://host/…)" }
            return nil
        case "http":
            guard let host = parts.host, !host.isEmpty else { return "must name a host (http://127.0.0.1:PORT/…)" }
            guard OIDCIssuerRules.isLoopback(host) else {
                return "uses http on a host other than localhost, 127.0.0.1 or [::1]; use https"
            }
            return nil
        case _ where refusedSchemes.contains(scheme):
            return "uses the scheme \(scheme):, which is nobody's callback"
        default:
            return nil
        }
    }

    static let refusedSchemes: Set<String> = ["javascript", "data", "vbscript", "file", "blob", "about", "filesystem", "ws", "wss", "ftp", "mailto"]

    static func idTokenAlgorithm(_ value: String) throws(APIError) -> String {
        guard algorithms.contains(value) else {
            throw APIError(.idTokenAlgInvalid, "The id_token algorithm (idTokenAlg, --id-token-alg) must be ES256 or RS256.")
        }
        return value
    }

    /// A subset of `openid profile email groups offline_access` that holds `openid`, in that order.
    static func scopes(_ values: [String]) throws(APIError) -> [String] {
        for value in values where !OIDCScope.supported.contains(value) {
            throw APIError(
                .clientScopeInvalid,
                "The scope \(quoted(value)) (scopes, --scope) is not one Latchkey has; choose from \(OIDCScope.supported.joined(separator: ", ")).")
        }
        guard values.contains(OIDCScope.openid) else {
            throw APIError(.openidScopeRequired, "A client's scopes (scopes, --scope) must include openid.")
        }
        return OIDCScope.supported.filter(values.contains)
    }

    /// At least one of `OIDCGrantType.allowable` (`device_code` stands for the device flow's URN), each
    /// once, in that order.
    static func grantTypes(_ values: [String]) throws(APIError) -> [String] {
        var kept: [String] = []
        for value in values {
            guard let canonical = OIDCGrantType.canonical(value) else {
                throw APIError(
                    .grantTypeInvalid,
                    "The grant type \(quoted(value)) (grantTypes, --grant) is not one a client may use; choose from authorization_code, client_credentials, device_code.")
            }
            if !kept.contains(canonical) { kept.append(canonical) }
        }
        guard !kept.isEmpty else { throw APIError(.grantTypeInvalid, "A client needs at least one grant type (grantTypes, --grant).") }
        return OIDCGrantType.allowable.filter(kept.contains)
    }

    static let apiScopeCount = 32
    static let apiScopeLength = 1...64

    /// The API scopes an operator defines for a client (what its client-credentials tokens may carry):
    /// at most 32 names of 1 to 64 of `A-Z a-z 0-9 . _ : / -` (`orders:read`, `api/write`), none of them
    /// a person scope (`openid`, `email`, …: a machine's token carries no person's claims), each once.
    static func apiScopes(_ values: [String]) throws(APIError) -> [String] {
        guard values.count <= apiScopeCount else { throw APIError(.apiScopeInvalid, "A client has at most \(apiScopeCount) API scopes (apiScopes).") }
        var kept: [String] = []
        for value in values {
            let bytes = Array(value.utf8)
            guard apiScopeLength.contains(bytes.count), bytes.allSatisfy({ InputRules.isNameByte($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: "/") })
            else {
                throw APIError(
                    .apiScopeInvalid,
                    "The API scope \(quoted(value)) (apiScopes, --api-scope) must be 1 to 64 letters, digits, dots, underscores, colons, slashes or hyphens.")
            }
            guard !OIDCScope.supported.contains(value) else {
                throw APIError(.apiScopeInvalid, "The API scope \(quoted(value)) (apiScopes, --api-scope) is a person scope; give it in scopes (--scope) instead.")
            }
            if !kept.contains(value) { kept.append(value) }
        }
        return kept
    }

    static let jwksBytes = 16 * 1024
    static let jwksKeys = 1...10

    /// A JWKS of public keys a client signs its assertions with (RFC 7517): a JSON object whose `keys` are 1
    /// to 10 objects, each with `kty` EC, RSA or OKP and a `kid` (assertions name their key by it), and no
    /// private member (`d`, `p`, `q` …: a private key registered here would be a secret shown to operators),
    /// 16 KiB at most. "" (or nil) is none. `AdminService` also loads it into JWTKit before storing it.
    static func jwks(_ text: String?) throws(APIError) -> String? {
        guard let text, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return nil }
        func refuse(_ why: String) -> APIError { APIError(.jwksInvalid, "The client's keys (jwks, --jwks-file) \(why).") }
        guard text.utf8.count <= jwksBytes else { throw refuse("are longer than \(jwksBytes / 1024) KiB") }
        guard let value = try? JSONValue.parse(Array(text.utf8)), case .object(let document) = value,
              case .array(let keys)? = document["keys"]
        else { throw refuse("must be a JSON Web Key Set: {\"keys\": [...]}") }
        guard jwksKeys.contains(keys.count) else { throw refuse("must hold 1 to \(jwksKeys.upperBound) keys") }
        var kids: Set<String> = []
        for key in keys {
            guard case .object(let members) = key, case .string(let type)? = members["kty"], ["EC", "RSA", "OKP"].contains(type) else {
                throw refuse("must each have kty EC, RSA or OKP")
            }
            guard case .string(let kid)? = members["kid"], !kid.isEmpty, kid.utf8.count <= 128, kids.insert(kid).inserted else {
                throw refuse("must each have their own kid")
            }
            for secret in ["d", "p", "q", "dp", "dq", "qi", "oth", "k"] where members[secret] != nil {
                throw refuse("hold a private key's member \(secret); register the public keys only")
            }
            // RFC 7518 §6.2.1.2: a coordinate is the curve's full size, zeros kept in front; some libraries
            // drop them (about one key in a hundred), which no verifier reads as the same point.
            if type == "EC", case .string(let curve)? = members["crv"], let size = ["P-256": 32, "P-384": 48][curve] {
                for coordinate in ["x", "y"] {
                    guard case .string(let text)? = members[coordinate], Base64URL.decode(text)?.count == size else {
                        throw refuse("have an EC key (\(kid)) whose \(coordinate) is not \(size) bytes (RFC 7518 §6.2.1.2: keep its leading zeros)")
                    }
                }
            }
        }
        return text
    }

    /// A new client-credentials generation (`OIDCClientRecord.credentialsGeneration`): 16 random bytes.
    static func generation() -> String { Base64URL.encode(RandomBytes.make(16)) }

    /// The rules that span fields, checked once the whole client is known: the client-credentials grant
    /// only for a confidential client (RFC 6749 §4.4: the client authenticates), and redirect URIs
    /// for one that signs people in with codes.
    static func check(_ client: OIDCClientRecord) throws(APIError) {
        if client.jwks != nil, client.jwksURI != nil {
            throw APIError(.jwksInvalid, "A client registers its keys (jwks, --jwks-file) or names where they are published (jwksUri, --jwks-uri), not both.")
        }
        if client.jwksURI != nil, client.secretHash != nil {
            throw APIError(.jwksInvalid, "A client whose keys are published (jwksUri, --jwks-uri) signs its assertions and has no secret.")
        }
        if client.allows(OIDCGrantType.clientCredentials), client.isPublic {
            throw APIError(.grantTypeInvalid, "A public client cannot use client_credentials (grantTypes, --grant): it has no secret to prove itself with.")
        }
        if client.allows(OIDCGrantType.authorizationCode), client.redirectURIs.isEmpty {
            throw APIError(.redirectURIRequired, "A client that uses authorization_code needs at least one redirect URI (redirectUris, --redirect-uri).")
        }
    }

    static func allowedGroups(_ values: [String]) throws(APIError) -> [String] {
        guard values.count <= groupCount else { throw APIError(.groupNameInvalid, "A client admits at most \(groupCount) groups (allowedGroups).") }
        return try InputRules.groupNames(values, field: "A group a client admits (allowedGroups, --allowed-group)")
    }

    // MARK: Whole clients

    /// A new client from an operator's request (its id and secret digest decided by the caller).
    static func newClient(
        _ request: OIDCClientRequest, id: String, secretHash: [UInt8]?, at now: Date, by actor: String
    ) throws(APIError) -> OIDCClientRecord {
        guard let name = request.name else {
            throw APIError(.clientNameInvalid, "A client needs a name (name), which the consent screen shows.")
        }
        let grants = try grantTypes(request.grantTypes ?? [OIDCGrantType.authorizationCode])
        // Only a client that sends people back with codes needs somewhere to send them.
        var redirects: [String] = []
        if grants.contains(OIDCGrantType.authorizationCode) || !(request.redirectUris ?? []).isEmpty {
            redirects = try redirectURIs(request.redirectUris ?? [])
        }
        let client = OIDCClientRecord(
            id: id, name: try self.name(name), secretHash: secretHash, redirectURIs: redirects,
            postLogoutURIs: try postLogoutURIs(request.postLogoutUris ?? []),
            idTokenAlgorithm: try idTokenAlgorithm(request.idTokenAlg ?? defaultAlgorithm), firstParty: request.firstParty ?? false,
            scopes: try scopes(request.scopes ?? defaultScopes), allowedGroups: try allowedGroups(request.allowedGroups ?? []),
            createdAt: now, updatedAt: now, createdBy: actor, grantTypes: grants, apiScopes: try apiScopes(request.apiScopes ?? []),
            credentialsGeneration: generation(), jwks: try jwks(request.jwks),
            backchannelLogoutURI: try backchannelLogoutURI(request.backchannelLogoutUri),
            groupsClaim: try OIDCClaimRules.groupsClaim(request.groupsClaim), jwksURI: try jwksURI(request.jwksUri))
        try check(client)
        return client
    }

    /// `client` with the members the request sends (all but the id and the secret, which the caller
    /// handles), and the names of the fields that changed.
    static func updated(_ client: OIDCClientRecord, by request: OIDCClientRequest, at now: Date) throws(APIError) -> (OIDCClientRecord, [String]) {
        if let id = request.id, id != client.id {
            throw APIError(.clientIdInvalid, "A client's id (id) cannot change; add a new client instead.")
        }
        var next = client
        if let name = request.name { next.name = try self.name(name) }
        if let grants = request.grantTypes { next.grantTypes = try grantTypes(grants) }
        if let uris = request.redirectUris {
            next.redirectURIs = []
            if next.allows(OIDCGrantType.authorizationCode) || !uris.isEmpty { next.redirectURIs = try redirectURIs(uris) }
        }
        if let scopes = request.apiScopes { next.apiScopes = try apiScopes(scopes) }
        if next.credentialsGeneration.isEmpty { next.credentialsGeneration = generation() }
        if let uris = request.postLogoutUris { next.postLogoutURIs = try postLogoutURIs(uris) }
        if let algorithm = request.idTokenAlg { next.idTokenAlgorithm = try idTokenAlgorithm(algorithm) }
        if let firstParty = request.firstParty { next.firstParty = firstParty }
        if let scopes = request.scopes { next.scopes = try self.scopes(scopes) }
        if let groups = request.allowedGroups { next.allowedGroups = try allowedGroups(groups) }
        if let uri = request.backchannelLogoutUri { next.backchannelLogoutURI = try backchannelLogoutURI(uri) }
        if let uri = request.jwksUri { next.jwksURI = try jwksURI(uri) }
        if let name = request.groupsClaim { next.groupsClaim = try OIDCClaimRules.groupsClaim(name) }
        var changed: [String] = []
        if next.name != client.name { changed.append("name") }
        if next.redirectURIs != client.redirectURIs { changed.append("redirectUris") }
        if next.postLogoutURIs != client.postLogoutURIs { changed.append("postLogoutUris") }
        if next.idTokenAlgorithm != client.idTokenAlgorithm { changed.append("idTokenAlg") }
        if next.firstParty != client.firstParty { changed.append("firstParty") }
        if next.scopes != client.scopes { changed.append("scopes") }
        if next.allowedGroups != client.allowedGroups { changed.append("allowedGroups") }
        if next.grantTypes != client.grantTypes { changed.append("grantTypes") }
        if next.apiScopes != client.apiScopes { changed.append("apiScopes") }
        if next.backchannelLogoutURI != client.backchannelLogoutURI { changed.append("backchannelLogoutUri") }
        if next.groupsClaim != client.groupsClaim { changed.append("groupsClaim") }
        next.updatedAt = now
        return (next, changed)
    }

    // MARK: Helpers

    /// RFC 3986's unreserved and reserved characters and `%`.
    private static func isURIByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        default: return "-._~:/?#[]@!$&'()*+,;=%".utf8.contains(byte)
        }
    }

    /// What stands between `scheme://` and the path: a user name hides there (`https://app@evil.example/`).
    private static func authority(of uri: String, scheme: String) -> Substring {
        let rest = uri.dropFirst(scheme.utf8.count + 1)
        guard rest.hasPrefix("//") else { return "" }
        let after = rest.dropFirst(2)
        return after.prefix { !"/?#".contains($0) }
    }

    /// A caller's value in a sentence: quoted, and cut short.
    private static func quoted(_ value: String) -> String {
        "\"\(value.count > 100 ? String(value.prefix(100)) + "…" : value)\""
    }
}
