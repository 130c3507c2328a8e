import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import NIOCore

/// The OpenID Connect provider's HTTP side. At the domain's root: discovery, WebFinger, the authorization
/// endpoint `/authorize` and the end-session endpoint `/end-session` (both serve Latchkey's page, whose
/// script asks the JSON API below — see `OIDCProvider` for why), and the machine endpoints `/oidc/token`,
/// `/oidc/userinfo`, `/oidc/revoke`, outside the rate limiter (a relying party's server calls them for
/// every sign-in, all from one address). In the rate-limited `/api` group, behind the optional
/// authentication middleware: `POST /api/oidc/authorization`, `/api/oidc/consent`, `/api/oidc/logout`.
/// Every route is there whether the provider is on or not (answering 404 `not_enabled` when off), so the
/// API document is the same for every configuration.
struct OIDCController: Sendable {
    let provider: OIDCProvider?
    let sessions: SessionService
    let configuration: ServerConfiguration
    let page: PageController.Asset?

    struct AuthorizationReply: APIResponseBody {
        /// The app as the page names it: its name, and where its logo is served when an operator gave it one
        /// (relative to the page, `oidc/logo/{id}`).
        struct Client: Encodable {
            let id: String
            let name: String
            var logo: String? = nil

            init(id: String, name: String, logo: String? = nil) {
                self.id = id
                self.name = name
                self.logo = logo
            }

            init(_ client: OIDCClientRecord) {
                self.init(id: client.id, name: client.name, logo: client.logoType == nil ? nil : String(OIDCClientLogo.path(clientId: client.id).dropFirst()))
            }
        }
        var redirect: String?
        var interaction: String?
        var after: String?
        var client: Client?
        var scopes: [String]?
        var loginHint: String?
    }

    /// `POST /api/oidc/device`: the app a user code is for and what it asks; after a decision, the decision.
    struct DeviceReply: APIResponseBody {
        var client: AuthorizationReply.Client
        var scopes: [String]
        var approved: Bool?
    }

    struct LogoutReply: APIResponseBody {
        var redirect: String?
        var confirm: Bool?
        var signedOut: Bool?
        var client: AuthorizationReply.Client?
    }

    func register<Context: LatchkeyRequestContext>(root: some RouterMethods<Context>, api: some RouterMethods<Context>, session: LatchkeyAuthenticationMiddleware<Context>) {
        root.get(".well-known/openid-configuration") { _, _ in
            let provider = try enabled()
            var response = Self.json(OIDCDiscovery.document(issuer: provider.settings.issuer), cache: "public, max-age=3600")
            // A public document a single-page app reads from its own origin (as the JWKS).
            response.headers[.accessControlAllowOrigin] = "*"
            return response
        }
        root.get(".well-known/webfinger") { request, _ in try webfinger(request) }
        root.get("authorize") { request, context in try await authorizePage(request) }
        root.post("authorize") { request, context in try await authorizeByPost(request) }
        root.get("end-session") { request, context in try await endSessionPage(request) }
        root.get("device") { request, _ in
            _ = try enabled()
            return try pageResponse(request)
        }
        root.get("oidc/logo/:clientId") { request, context in try await logo(request, clientId: try context.parameters.require("clientId")) }
        // The machine endpoints, which single-page apps call from their own origins (CORS: OIDCCrossOrigin).
        let crossOrigin = provider.map { OIDCCrossOrigin(facts: $0.clientFacts) }
        let machine = RouteCollection(context: Context.self).add(middleware: OIDCCrossOrigin.Middleware<Context>(crossOrigin: crossOrigin))
        machine.post("oidc/token") { request, context in try await token(request, context: context) }
        machine.get("oidc/userinfo") { request, _ in try await userInfo(request, form: nil) }
        machine.post("oidc/userinfo") { request, _ in try await userInfo(request, form: try await Self.form(request, optional: true)) }
        machine.post("oidc/revoke") { request, context in try await revoke(request, context: context) }
        machine.post("oidc/device") { request, context in try await deviceAuthorization(request, context: context) }
        for (path, methods) in [("oidc/token", "POST"), ("oidc/userinfo", "GET, POST"), ("oidc/revoke", "POST")] {
            machine.on(RouterPath(stringLiteral: path), method: .options) { request, _ in
                guard let crossOrigin else { throw TokenController.notEnabled("OpenID Connect sign-ins") }
                return try await crossOrigin.preflight(request, methods: methods)
            }
        }
        root.addRoutes(machine)
        let group = RouteCollection(context: Context.self).add(middleware: session)
        group.post("oidc/authorization") { request, context in try await decide(request, context: context, consenting: false) }
        group.post("oidc/consent") { request, context in try await decide(request, context: context, consenting: true) }
        group.post("oidc/logout") { request, context in try await logout(request, context: context) }
        group.post("oidc/device") { request, context in try await deviceDecision(request, context: context) }
        api.addRoutes(group)
    }

    /// `GET /oidc/logo/{clientId}`: the logo an operator gave the client, for the consent screen's `<img>`;
    /// served as `--brand-logo` is, with a policy that allows nothing and a sandbox (an SVG opened on its
    /// own runs no script), revalidated by its ETag. 404 when the client has none.
    private func logo(_ request: Request, clientId: String) async throws -> Response {
        let provider = try enabled()
        guard clientId.utf8.count <= 128, let logo = try await provider.store.oidcClients.logo(id: clientId) else {
            throw APIError(.notFound, "This client has no logo (latchkey admin clients update ID --logo FILE gives it one).")
        }
        let asset = PageController.Asset(data: logo.data, contentType: logo.contentType)
        var response = PageController.response(asset, request: request)
        response.headers[.contentSecurityPolicy] = BrandController.imagePolicy
        return response
    }

    private func enabled() throws -> OIDCProvider {
        guard let provider else { throw TokenController.notEnabled("OpenID Connect sign-ins") }
        return provider
    }

    // MARK: The authorization endpoint

    /// `GET /authorize`: the page, once the client and redirect URI are known good; errors the client
    /// can be told about go back to it at once (303), the rest are shown here.
    private func authorizePage(_ request: Request) async throws -> Response {
        let provider = try enabled()
        do {
            _ = try await provider.request(query: Substring(request.uri.query ?? ""))
        } catch let problem as OIDCAuthorizationRequest.Problem {
            return response(problem, issuer: provider.settings.issuer, request: request)
        }
        return try pageResponse(request)
    }

    /// `POST /authorize` (Core §3.1.2.1: the endpoint MUST take POST too), a form: read like the query of a
    /// GET, then the browser is sent to the same request as a GET on this origin, where the page reads it
    /// from its address.
    private func authorizeByPost(_ request: Request) async throws -> Response {
        let provider = try enabled()
        guard RequestBody.contentType(of: request, isOneOf: .form) else {
            return OIDCErrorPage.response(
                APIError(.oidcMalformedRequest, "A sign-in request sent by POST must be a form (application/x-www-form-urlencoded)."),
                acceptLanguage: request.headers[.acceptLanguage], defaultLanguage: configuration.defaultLanguage, brand: brand)
        }
        let body = String(decoding: try await RequestBody.collect(request).readableBytesView, as: UTF8.self)
        do {
            _ = try await provider.request(query: Substring(body))
        } catch let problem as OIDCAuthorizationRequest.Problem {
            return response(problem, issuer: provider.settings.issuer, request: request)
        }
        let parameters = (try? OAuthParameters(parsing: Substring(body)))?.values.sorted { $0.key < $1.key }.map { ($0.key, $0.value) } ?? []
        return Response(status: .seeOther, headers: [.location: "authorize?" + OAuthParameters.encode(parameters), .cacheControl: "no-store"])
    }

    /// `POST /api/oidc/authorization` and `/api/oidc/consent`: the decision for the person's session.
    private func decide(_ request: Request, context: some LatchkeyRequestContext, consenting: Bool) async throws -> AuthorizationReply {
        let provider = try enabled()
        let body = try await RequestBody.decode(OIDCAuthorizationBody.self, from: request)
        let authorization: OIDCAuthorizationRequest
        do {
            authorization = try await provider.request(query: Self.query(body.query))
        } catch let problem as OIDCAuthorizationRequest.Problem {
            switch problem {
            case .page(let error): throw error
            case .redirect(let error, let uri, let state):
                return AuthorizationReply(redirect: OIDCAuthorizationRequest.redirect(
                    to: uri, [("error", error.code.rawValue), ("error_description", error.description)], state: state, issuer: provider.settings.issuer))
            }
        }
        let caller = context.optionalCaller()
        var session: SessionDetails?
        if let caller { session = try await sessions.details(for: caller.token) }
        if consenting, caller == nil { throw APIError.notAuthenticated }
        let origin = AuditOrigin(request, context: context, actor: caller == nil ? "anonymous" : "person", trustForwardedFor: configuration.trustForwardedFor)
        let outcome = try await provider.authorize(
            authorization, session: session, after: body.after, consent: consenting ? (body.allow ?? false) : nil, origin: origin)
        switch outcome {
        case .redirect(let uri): return AuthorizationReply(redirect: uri)
        case .interaction(let interaction):
            return AuthorizationReply(
                interaction: interaction.kind.rawValue, after: interaction.after,
                client: .init(interaction.client), scopes: interaction.scopes, loginHint: interaction.loginHint)
        }
    }

    // MARK: The token endpoint

    private func token(_ request: Request, context: some RequestContext) async throws -> Response {
        try await machineEndpoint(request, context: context) { provider, parameters, origin in
            try await OIDCTokenEndpoint(provider: provider).exchange(parameters, authorization: request.headers[.authorization], origin: origin)
                .map(\.json)
        }
    }

    /// A machine endpoint's one shape (the token endpoint, the device authorization endpoint): the provider on,
    /// the form read behind its bounds, the client's audit origin, then `answer`'s JSON, never cached, or its
    /// OAuth error in the protocol's own shape.
    private func machineEndpoint(
        _ request: Request, context: some RequestContext,
        _ answer: (OIDCProvider, OAuthParameters, AuditOrigin) async throws -> Result<[UInt8], OAuthError>
    ) async throws -> Response {
        let provider = try enabled()
        let parameters: OAuthParameters
        switch try await Self.oauthForm(request) {
        case .success(let read): parameters = read
        case .failure(let error): return error.response
        }
        let origin = AuditOrigin(request, context: context, actor: "client", trustForwardedFor: configuration.trustForwardedFor)
        switch try await answer(provider, parameters, origin) {
        case .success(let json): return Self.json(json, cache: "no-store")
        case .failure(let error): return error.response
        }
    }

    // MARK: The device flow (RFC 8628)

    /// `POST /oidc/device`: the device authorization endpoint.
    private func deviceAuthorization(_ request: Request, context: some RequestContext) async throws -> Response {
        try await machineEndpoint(request, context: context) { provider, parameters, origin in
            try await OIDCDeviceFlow(provider: provider).authorize(parameters, authorization: request.headers[.authorization], origin: origin)
                .map(\.json)
        }
    }

    /// `POST /api/oidc/device`: for the signed-in person on the verification page, what `userCode` is for
    /// (the app's name, the scopes), or — with `allow` — their answer.
    private func deviceDecision(_ request: Request, context: some LatchkeyRequestContext) async throws -> DeviceReply {
        let provider = try enabled()
        let body = try await RequestBody.decode(OIDCDeviceBody.self, from: request)
        guard let caller = context.optionalCaller(), let session = try await sessions.details(for: caller.token) else {
            throw APIError.notAuthenticated
        }
        let flow = OIDCDeviceFlow(provider: provider)
        let (record, client) = try await flow.pending(userCode: body.userCode)
        var reply = DeviceReply(client: .init(client), scopes: record.scopes)
        if let allow = body.allow {
            let origin = AuditOrigin(request, context: context, actor: "person", trustForwardedFor: configuration.trustForwardedFor)
            try await flow.decide(userCode: body.userCode, allow: allow, session: session, origin: origin)
            reply.approved = allow
        }
        return reply
    }

    // MARK: UserInfo (Core §5.3)

    private func userInfo(_ request: Request, form: OAuthParameters?) async throws -> Response {
        let provider = try enabled()
        let header = request.headers[.authorization]
        let token: String
        if let header {
            guard form?["access_token"] == nil else {
                return OAuthError(.invalidRequest, "Send the access token one way only (RFC 6750 §2).").response
            }
            guard let bearer = try? RequestAuthentication.bearerToken(header) else {
                return OAuthError.invalidToken("Authorization must be Bearer <access token>.").response
            }
            token = bearer
        } else if let bodyToken = form?["access_token"] {
            token = bodyToken
        } else {
            return OAuthError.invalidToken("Send the access token as Authorization: Bearer <token>.", missing: true).response
        }
        guard token.utf8.count <= 4096, let found = try await provider.tokens.introspectForClients(token), let grant = found.grant,
              grant.scopes.contains(OIDCScope.openid), let client = try await provider.store.oidcClients.client(id: grant.clientId),
              let released = try await OIDCUserClaims.load(accountId: grant.accountId, scopes: grant.scopes, client: client, store: provider.store)
        else { return OAuthError.invalidToken("The access token is not active.").response }
        return Self.json(released.json(sub: grant.accountId), cache: "no-store")
    }

    // MARK: Revocation (RFC 7009)

    private func revoke(_ request: Request, context: some RequestContext) async throws -> Response {
        let provider = try enabled()
        let parameters: OAuthParameters
        switch try await Self.oauthForm(request) {
        case .success(let read): parameters = read
        case .failure(let error): return error.response
        }
        let client: OIDCClientRecord
        switch try await OIDCClientAuthentication.client(authorization: request.headers[.authorization], parameters: parameters, provider: provider) {
        case .success(let found): client = found
        case .failure(let error): return error.response
        }
        guard let token = parameters["token"] else { return OAuthError(.invalidRequest, "token is missing.").response }
        var grant: OIDCGrantRecord?
        if token.utf8.count <= 4096, token.contains(".") {
            let found = try await provider.tokens.introspectForClients(token)
            grant = found?.grant
            // A client-credentials token: revoking it ends every such token of its client (they have no
            // row each; the client asks for a new one).
            if let owner = found?.client {
                guard owner.id == client.id else {
                    return OAuthError(.unauthorizedClient, "This token was not issued to this client.").response
                }
                let origin = AuditOrigin(request, context: context, actor: "client", trustForwardedFor: configuration.trustForwardedFor)
                try await provider.revokeClientCredentials(of: owner, origin: origin)
                return Response(status: .ok, headers: [.cacheControl: "no-store"])
            }
        } else if token.utf8.count <= 128 {
            grant = try await provider.store.oidcGrants.grant(refreshHash: SecretDigest.of(token))
        }
        // §2.1: another client's token is refused (and left alone); §2.2: an unknown one is answered like a
        // revoked one.
        if let grant, grant.clientId != client.id {
            return OAuthError(.unauthorizedClient, "This token was not issued to this client.").response
        }
        if let grant {
            let origin = AuditOrigin(request, context: context, actor: "client", trustForwardedFor: configuration.trustForwardedFor)
            try await provider.revoke(grant, by: client, origin: origin)
        }
        return Response(status: .ok, headers: [.cacheControl: "no-store"])
    }

    // MARK: RP-initiated logout (RP-Initiated Logout 1.0)

    /// What an end-session request asks, checked: the client (from `client_id` or the hint's audience),
    /// the hint's claims when it is one of this server's id_tokens, and the registered place to go after.
    private struct EndSession {
        var client: OIDCClientRecord?
        var hint: IDTokenClaims?
        var redirect: String?
    }

    private func endSession(_ query: Substring, provider: OIDCProvider) async throws -> EndSession {
        let parameters: OAuthParameters
        do {
            parameters = try OAuthParameters(parsing: query)
        } catch {
            throw APIError(.oidcMalformedRequest, "The sign-out request \(error.reason).")
        }
        var result = EndSession()
        if let hint = parameters["id_token_hint"], hint.utf8.count <= 8192 {
            result.hint = try await provider.tokens.verifyHint(hint)
        }
        let clientId = parameters["client_id"] ?? result.hint?.aud.value.first
        if let asked = parameters["client_id"], let hinted = result.hint?.aud.value.first, asked != hinted {
            throw APIError(.oidcInvalidClient, "The sign-out request names two different apps.")
        }
        if let clientId, clientId.utf8.count <= 128 { result.client = try await provider.store.oidcClients.client(id: clientId) }
        if let uri = parameters["post_logout_redirect_uri"] {
            guard let client = result.client else {
                throw APIError(.oidcInvalidClient, "The sign-out request asks to return to an app but does not say which (client_id or id_token_hint).")
            }
            guard client.postLogoutURIs.contains(uri) else {
                throw APIError(.oidcInvalidRedirectURI, "The sign-out request of \(client.name) asks to return to an address it did not register.")
            }
            var pairs: [(String, String)] = []
            if let state = parameters["state"] { pairs.append(("state", state)) }
            result.redirect = pairs.isEmpty ? uri : uri + (uri.contains("?") ? "&" : "?") + OAuthParameters.encode(pairs)
        }
        return result
    }

    private func endSessionPage(_ request: Request) async throws -> Response {
        let provider = try enabled()
        do {
            _ = try await endSession(Substring(request.uri.query ?? ""), provider: provider)
        } catch let error as APIError {
            return OIDCErrorPage.response(
                error, acceptLanguage: request.headers[.acceptLanguage], defaultLanguage: configuration.defaultLanguage, brand: brand)
        }
        return try pageResponse(request)
    }

    /// `POST /api/oidc/logout`: ends the browser's session when the request shows it is this person's
    /// (a valid `id_token_hint` for the account), or when the person confirmed; with neither, asks them
    /// to confirm (Logout §2: a logout nobody asked for is an attack on the person).
    private func logout(_ request: Request, context: some LatchkeyRequestContext) async throws -> APIReply<LogoutReply> {
        let provider = try enabled()
        let body = try await RequestBody.decode(OIDCLogoutBody.self, from: request)
        let asked = try await endSession(Self.query(body.query), provider: provider)
        let client = asked.client.map { AuthorizationReply.Client(id: $0.id, name: $0.name) }
        guard let caller = context.optionalCaller() else {
            return APIReply(body: LogoutReply(redirect: asked.redirect, signedOut: asked.redirect == nil ? true : nil, client: client))
        }
        let confirmedByHint = asked.hint?.sub.value == caller.accountId
        guard confirmedByHint || body.confirmed == true else {
            return APIReply(body: LogoutReply(confirm: true, client: client))
        }
        let origin = AuditOrigin(request, context: context, actor: "person", trustForwardedFor: configuration.trustForwardedFor)
        try await provider.endSession(token: caller.token, accountId: caller.accountId, client: asked.client, origin: origin)
        return APIReply(
            headers: [.setCookie: SessionCookie.clear(secure: configuration.secureCookies, domain: configuration.cookieDomain)],
            body: LogoutReply(redirect: asked.redirect, signedOut: asked.redirect == nil ? true : nil, client: client))
    }

    // MARK: WebFinger (RFC 7033, OpenID Connect Discovery §2)

    private func webfinger(_ request: Request) throws -> Response {
        let provider = try enabled()
        guard let domain = configuration.webfingerDomain else { throw TokenController.notEnabled("WebFinger answers") }
        let parameters: OAuthParameters
        do {
            parameters = try OAuthParameters(parsing: Substring(request.uri.query ?? ""))
        } catch {
            throw APIError(.oidcMalformedRequest, "The WebFinger query \(error.reason).")
        }
        guard let resource = parameters["resource"] else { throw APIError(.missingField, "Ask for a resource: ?resource=acct:name@\(domain).") }
        guard resource.hasPrefix("acct:"), let at = resource.lastIndex(of: "@"),
              resource[resource.index(after: at)...].lowercased() == domain.lowercased()
        else { throw APIError(.notFound, "This server answers WebFinger only for acct:…@\(domain).") }
        var json = JSONWriter()
        json.object { object in
            object.member("subject", resource)
            object.member("links") { writer in
                writer.array([provider.settings.issuer]) { link, issuer in
                    link.object { member in
                        member.member("rel", "http://openid.net/specs/connect/1.0/issuer")
                        member.member("href", issuer)
                    }
                }
            }
        }
        var response = Self.json(json.bytes, cache: "public, max-age=3600")
        response.headers[.contentType] = "application/jrd+json"
        response.headers[.accessControlAllowOrigin] = "*"
        return response
    }

    // MARK: Helpers

    private func pageResponse(_ request: Request) throws -> Response {
        guard let page else { throw APIError(.notFound, "This server does not serve the page that OpenID Connect sign-ins need.") }
        var response = PageController.response(page, request: request)
        response.headers[.cacheControl] = "no-store"
        return response
    }

    /// A body `OAuthParameters` reads, refusing anything but a form.
    private static func oauthForm(_ request: Request) async throws -> Result<OAuthParameters, OAuthError> {
        switch try await OAuthParameters.form(of: request) {
        case .success(let parameters): return .success(parameters)
        case .failure(.notAForm):
            return .failure(OAuthError(.invalidRequest, "Send the parameters as application/x-www-form-urlencoded (RFC 6749 §3.2)."))
        case .failure(.malformed(let malformed)):
            return .failure(OAuthError(.invalidRequest, "The body \(malformed.reason)."))
        }
    }

    /// The form body of a POST to UserInfo, if it is one (RFC 6750 §2.2 allows the token there).
    private static func form(_ request: Request, optional: Bool) async throws -> OAuthParameters? {
        guard RequestBody.contentType(of: request, isOneOf: .form) else { return nil }
        switch try await oauthForm(request) {
        case .success(let parameters): return parameters
        case .failure: return nil
        }
    }

    /// The query as the page sends it: with or without its leading `?`.
    private static func query(_ text: String) -> Substring {
        text.hasPrefix("?") ? text.dropFirst() : Substring(text)
    }

    /// The service's name on the pages it renders.
    private var brand: String { configuration.brandName ?? configuration.rpName }

    private func response(_ problem: OIDCAuthorizationRequest.Problem, issuer: String, request: Request) -> Response {
        switch problem {
        case .page(let error):
            return OIDCErrorPage.response(
                error, acceptLanguage: request.headers[.acceptLanguage], defaultLanguage: configuration.defaultLanguage, brand: brand)
        case .redirect(let error, let uri, let state):
            let location = OIDCAuthorizationRequest.redirect(
                to: uri, [("error", error.code.rawValue), ("error_description", error.description)], state: state, issuer: issuer)
            return Response(status: .seeOther, headers: [.location: location, .cacheControl: "no-store"])
        }
    }

    static func json(_ bytes: [UInt8], cache: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: cache],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
