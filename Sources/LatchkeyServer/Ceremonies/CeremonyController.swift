import Hummingbird
import LatchkeyAPI
import WebAuthn

/// `/api/registration/*` and `/api/login/*`: the two ceremonies over HTTP.
struct CeremonyController: Sendable {
    let ceremonies: CeremonyService
    let configuration: ServerConfiguration
    let providers: PasskeyProviders

    /// The routes, for the router's `/api` group. Registration is behind `session` (the authentication
    /// middleware, not required, that lets a recovery session through): with a session it adds a passkey
    /// to that account. Login needs none.
    func routes<Context: LatchkeyRequestContext>(session: LatchkeyAuthenticationMiddleware<Context>) -> RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        routes.post("login/options") { request, _ in try await loginOptions(request) }
        routes.post("login/verify") { request, context in try await loginVerify(request, origin: origin(request, context)) }
        routes.add(middleware: session)
        routes.post("registration/options") { request, context in try await registrationOptions(request, context.optionalCaller()) }
        routes.post("registration/verify") { request, context in
            try await registrationVerify(request, context.optionalCaller(), origin: origin(request, context))
        }
        return routes
    }

    /// Where a ceremony's request came from, for the audit trail.
    private func origin(_ request: Request, _ context: some RequestContext) -> AuditOrigin {
        AuditOrigin(request, context: context, actor: "anonymous", trustForwardedFor: configuration.trustForwardedFor)
    }

    /// With a session: options to add a passkey to this account. Without: options for a new account.
    func registrationOptions(
        _ request: Request, _ caller: RequestAuthentication.Caller?
    ) async throws -> OptionsResponse<PublicKeyCredentialCreationOptionsJSON> {
        let body = try await RequestBody.read(request).map { try RequestBody.decode(RegistrationOptionsRequest.self, from: $0) }
        if let caller {
            guard let session = try await ceremonies.sessions.details(for: caller.token) else { throw APIError.notAuthenticated }
            return OptionsResponse(publicKey: try await ceremonies.addPasskeyOptions(session: session, account: caller.account, name: body?.name))
        }
        guard let displayName = body?.displayName else {
            throw APIError(.missingField, "The field displayName is missing.")
        }
        return OptionsResponse(publicKey: try await ceremonies.registrationOptions(displayName: displayName))
    }

    /// What a finished registration answers: a new account's session, or the passkey added to the
    /// caller's account; 201 either way.
    enum RegistrationReply: ResponseGenerator {
        case account(APIReply<SessionResponse>)
        case passkey(PasskeyResponse)

        func response(from request: Request, context: some RequestContext) throws -> Response {
            switch self {
            case .account(let reply): return try reply.response(from: request, context: context)
            case .passkey(let body): return try APIReply(status: .created, body: body).response(from: request, context: context)
            }
        }
    }

    func registrationVerify(_ request: Request, _ caller: RequestAuthentication.Caller?, origin: AuditOrigin) async throws -> RegistrationReply {
        let body = try await RequestBody.decode(RegistrationVerifyRequest.self, from: request)
        let recovery = caller.flatMap { caller in
            caller.recoveryGrant.map { grant in
                switch caller.method {
                case .device: RecoveryUse(grantId: grant, endsSessions: false, source: .deviceRequest)
                case .invitation: RecoveryUse(grantId: grant, endsSessions: false, source: .invitation)
                default: RecoveryUse(grantId: grant, endsSessions: configuration.recoveryEndsSessions)
                }
            }
        }
        switch try await ceremonies.verifyRegistration(body.credential, sessionAccountId: caller?.accountId, origin: origin, recovery: recovery) {
        case .newAccount(let token, let account):
            return .account(session(.created, token: token, account: account))
        case .addedPasskey(let credential):
            let providers = try await self.providers.completed(for: [credential.aaguid], from: ceremonies.store)
            return .passkey(PasskeyResponse(passkey: PasskeyJSON(credential, providers: providers, androidApps: configuration.androidApps)))
        }
    }

    /// The body is optional: without one (the usual case) nothing is read beyond its absence. With one, its
    /// `prf` inputs replace the configured salt for this login.
    func loginOptions(_ request: Request) async throws -> OptionsResponse<PublicKeyCredentialRequestOptionsJSON> {
        let prf = try await RequestBody.read(request).flatMap { try RequestBody.decode(LoginOptionsRequest.self, from: $0).prf }
        return OptionsResponse(publicKey: try await ceremonies.loginOptions(prf: try prf.map { inputs throws(APIError) in try InputRules.prfInputs(inputs) }))
    }

    /// A verified login's session; the PRF outputs the client reported come back with it (checked for their
    /// size first), and go nowhere else.
    func loginVerify(_ request: Request, origin: AuditOrigin) async throws -> APIReply<SessionResponse> {
        let body = try await RequestBody.decode(LoginVerifyRequest.self, from: request)
        let prf = try body.credential.clientExtensionResults.prf?.results.map { results throws(APIError) in try InputRules.prfResults(results) }
        let (token, account) = try await ceremonies.verifyLogin(body.credential, origin: origin)
        return session(.ok, token: token, account: account, prf: prf)
    }

    /// The session's answer, with its cookie for the page.
    private func session(
        _ status: HTTPResponse.Status, token: SessionToken, account: AccountRecord, prf: PRFValuesJSON? = nil
    ) -> APIReply<SessionResponse> {
        let cookie = SessionCookie.set(token, maxAge: Int(configuration.sessionTTL), secure: configuration.secureCookies, domain: configuration.cookieDomain)
        return APIReply(
            status: status, headers: [.setCookie: cookie], body: SessionResponse(token: token.value, account: AccountJSON(account), prf: prf))
    }
}
