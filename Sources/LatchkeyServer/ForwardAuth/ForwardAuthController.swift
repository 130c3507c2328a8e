import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import NIOCore

/// Forward authentication (docs/forward-auth.md): a reverse proxy asks `GET /api/forward-auth` before it
/// lets a request through to an app that knows nothing of passkeys, and the page asks
/// `GET /api/forward-auth/verdict` where to send a person who has just signed in.
///
/// The check reads what was asked for from the proxy's headers — `X-Original-URL` (nginx's
/// `auth_request`, which can only take 2xx, 401 and 403) or `X-Forwarded-Proto`, `-Host` and `-Uri`
/// (Caddy's `forward_auth`, Traefik's `forwardAuth`, which hand any other answer to the browser) — and
/// the browser's session cookie, and answers:
/// - 200 with the identity headers (`Remote-User`, `Remote-Name`, `Remote-Email`, `Remote-Groups`; the
///   prefix is `--forward-auth-header-prefix`) when the rules let the person through;
/// - to sign in (again, for a rule's max-age): 401 with `Location` for nginx, 302 for the others, to
///   `/forward-auth?rd=URL` on Latchkey's first origin;
/// - refused: 403 with a page that names the groups that may pass (and, for nginx, whose own 403 page
///   would replace it, `Location` to Latchkey's page saying the same);
/// - a missing or malformed address, or one outside the cookie domain: 400 `invalid_return_url`.
///
/// It is outside the per-address rate limit (the proxy asks from one address for everyone) and reads the
/// database only when `ForwardAuthCache` has not seen the session in its last seconds.
struct ForwardAuthController: Sendable {
    let store: Store
    let rules: ForwardAuthRules
    let cache: ForwardAuthCache
    /// Return URLs must be on this domain or under it.
    let domain: String
    /// The cookie is `Secure`: only https return URLs (it would not reach an http app anyway).
    let secureCookies: Bool
    let cookieDomain: String?
    /// Where the sign-in page is: Latchkey's first origin.
    let pageOrigin: String
    let headers: Headers
    let now: @Sendable () -> Date

    /// The identity headers' names.
    struct Headers: Sendable {
        /// User, Name, Email, Groups, each after the prefix. `validate()` allowed only token characters
        /// in the prefix, so none is left out.
        let names: [HTTPField.Name]

        init(prefix: String) {
            names = ["User", "Name", "Email", "Groups"].compactMap { HTTPField.Name(prefix + $0) }
        }
    }

    /// The refusal page's language when Accept-Language names none shipped, and the service's name on it.
    let defaultLanguage: String
    let brand: String

    init(store: Store, cache: ForwardAuthCache, configuration: ServerConfiguration, now: @escaping @Sendable () -> Date) {
        self.store = store
        self.rules = ForwardAuthRules(rules: configuration.forwardAuthRules)
        self.cache = cache
        self.domain = configuration.forwardAuthDomain
        self.secureCookies = configuration.secureCookies
        self.cookieDomain = configuration.cookieDomain
        self.pageOrigin = configuration.origins.first ?? "http://localhost:8080"
        self.headers = Headers(prefix: configuration.forwardAuthHeaderPrefix)
        self.defaultLanguage = configuration.defaultLanguage
        self.brand = configuration.brandName ?? configuration.rpName
        self.now = now
    }

    static let originalURL = HTTPField.Name("X-Original-URL")
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")
    static let forwardedHost = HTTPField.Name("X-Forwarded-Host")
    static let forwardedURI = HTTPField.Name("X-Forwarded-Uri")

    /// The check on `unlimited` (outside the rate limit) and the page's question on `api`.
    func register<Context: RequestContext>(unlimited: some RouterMethods<Context>, api: some RouterMethods<Context>) {
        unlimited.get("api/forward-auth") { request, _ in try await check(request) }
        api.get("forward-auth/verdict") { request, _ in try await verdict(request) }
    }

    // MARK: The proxy's check

    func check(_ request: Request) async throws -> Response {
        let nginx = Self.originalURL.flatMap { request.headers[$0] } != nil
        let asked = try Self.requestedURL(request.headers, domain: domain, httpsOnly: secureCookies)
        guard let path = ForwardAuthPath.normalized(asked.path) else {
            throw APIError(.invalidReturnURL, "The requested path does not decode (a broken % escape, a NUL or bytes that are not UTF-8).")
        }
        let identity = try await identity(of: request)
        switch rules.verdict(host: asked.host, path: path, identity: identity, now: now()) {
        case .pass:
            guard let identity else { throw APIError.notAuthenticated }
            var fields: HTTPFields = [.cacheControl: "no-store"]
            let values = [identity.user, identity.displayName, identity.email ?? "", identity.groups.joined(separator: ",")]
            for (name, value) in zip(headers.names, values) { fields[name] = Self.headerSafe(value) }
            return Response(status: .ok, headers: fields)
        case .signIn:
            let location = signInURL(returningTo: asked)
            var fields: HTTPFields = [.location: location, .cacheControl: "no-store", .contentType: "text/plain; charset=utf-8"]
            fields[.wwwAuthenticate] = "Latchkey"
            return Response(
                status: nginx ? .unauthorized : .found, headers: fields,
                body: .init(byteBuffer: ByteBuffer(string: "Sign in with your passkey: \(location)\n")))
        case .refused(let groups):
            var response = ForwardAuthRefusalPage.response(
                host: asked.host, groups: groups, signedIn: identity != nil, pageOrigin: pageOrigin,
                acceptLanguage: request.headers[.acceptLanguage], defaultLanguage: defaultLanguage, brand: brand)
            if nginx { response.headers[.location] = signInURL(returningTo: asked) }
            return response
        }
    }

    // MARK: The page's question

    /// Where the page sends the person for `rd`: back (`pass`), to sign in (`sign-in`, `fresh-sign-in`), or
    /// nowhere (`refused`, with the groups that may).
    func verdict(_ request: Request) async throws -> ForwardAuthVerdictJSON {
        let query = APIQuery(request.uri)
        guard let text = query.parameters["rd"].map(String.init) else {
            throw APIError(.invalidReturnURL, "Give the address to go back to as rd.")
        }
        guard query.parameters[values: "rd"].count == 1, let url = ForwardAuthReturnURL(text, domain: domain, httpsOnly: secureCookies) else {
            throw APIError(.invalidReturnURL, Self.refusedReturnURL)
        }
        guard let path = ForwardAuthPath.normalized(url.path) else { throw APIError(.invalidReturnURL, Self.refusedReturnURL) }
        let identity = try await identity(of: request)
        switch rules.verdict(host: url.host, path: path, identity: identity, now: now()) {
        case .pass: return ForwardAuthVerdictJSON(verdict: "pass", host: url.host, redirect: url.text, groups: [])
        case .signIn(let fresh): return ForwardAuthVerdictJSON(verdict: fresh ? "fresh-sign-in" : "sign-in", host: url.host, redirect: nil, groups: [])
        case .refused(let groups): return ForwardAuthVerdictJSON(verdict: "refused", host: url.host, redirect: nil, groups: groups)
        }
    }

    static let refusedReturnURL = "This address is not one Latchkey sends people back to: only http(s) addresses on this server's domain are."

    // MARK: Reading the request

    /// The address the proxy was asked for: `X-Original-URL`, else `X-Forwarded-Proto`://`X-Forwarded-Host``X-Forwarded-Uri`.
    static func requestedURL(_ fields: HTTPFields, domain: String, httpsOnly: Bool) throws -> ForwardAuthReturnURL {
        let text: String
        if let original = originalURL.flatMap({ fields[$0] }) {
            text = original
        } else if let proto = forwardedProto.flatMap({ fields[$0] }), let host = forwardedHost.flatMap({ fields[$0] }) {
            let uri = forwardedURI.flatMap { fields[$0] } ?? "/"
            guard uri.hasPrefix("/") else { throw APIError(.invalidReturnURL, "X-Forwarded-Uri must be a path starting with /.") }
            text = "\(proto)://\(host)\(uri)"
        } else {
            throw APIError(
                .invalidReturnURL,
                "The proxy must say what was asked for: X-Original-URL (nginx), or X-Forwarded-Proto, X-Forwarded-Host and X-Forwarded-Uri (Caddy, Traefik).")
        }
        guard let url = ForwardAuthReturnURL(text, domain: domain, httpsOnly: httpsOnly) else {
            throw APIError(.invalidReturnURL, "The requested address is not an http(s) address on this server's domain (\(domain)); add the host under --cookie-domain.")
        }
        return url
    }

    /// The person behind the request's session cookie: from the cache, else the database (then kept).
    /// Nil without a cookie, with a malformed one, or for a session that is not a live full one.
    func identity(of request: Request) async throws -> ForwardAuthIdentity? {
        let header = request.headers[values: .cookie].joined(separator: "; ")
        guard let token = SessionCookie.token(in: header, secure: secureCookies, domain: cookieDomain),
              !token.hasPrefix(SessionToken.recoveryPrefix), RequestAuthentication.isWellFormed(token)
        else { return nil }
        let hash = SessionToken.hash(of: token)
        let at = now()
        if let kept = cache.identity(tokenHash: hash, now: at) { return kept }
        guard let found = try await store.forwardAuth.identity(tokenHash: hash, now: at) else { return nil }
        cache.keep(found, tokenHash: hash, now: at)
        return found
    }

    /// `/forward-auth?rd=URL` on Latchkey's first origin.
    func signInURL(returningTo url: ForwardAuthReturnURL) -> String {
        "\(pageOrigin)/forward-auth?rd=" + Self.queryEncoded(url.text)
    }

    static func queryEncoded(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(0x7f)))
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }

    /// A value without control characters (a name cannot hold them, but a header must never).
    static func headerSafe(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7f ? " " : $0 }))
    }
}

/// `GET /api/forward-auth/verdict`'s answer.
struct ForwardAuthVerdictJSON: APIResponseBody, JSONWritable {
    /// `pass`, `sign-in`, `fresh-sign-in` or `refused`.
    let verdict: String
    let host: String
    /// With `pass`: the address to go back to.
    let redirect: String?
    /// With `refused`: the groups that may pass (none: nobody may).
    let groups: [String]

    func write(to json: inout JSONWriter) {
        json.object { json in
            json.member("groups") { $0.array(groups) { $0.string($1) } }
            json.member("host", host)
            if let redirect { json.member("redirect", redirect) }
            json.member("verdict", verdict)
        }
    }
}
