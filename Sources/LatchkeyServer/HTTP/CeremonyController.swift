import Hummingbird

/// `/api/registration/*` and `/api/login/*`: the two ceremonies over HTTP.
struct CeremonyController: Sendable {
    let ceremonies: CeremonyService
    let configuration: ServerConfiguration
    let providers: PasskeyProviders

    /// The routes, for the router's `/api` group. Registration is behind `session` (the authentication
    /// middleware, not required): with a session it adds a passkey to that account. Login needs none.
    func routes<Context: LatchkeyRequestContext>(session: LatchkeyAuthenticationMiddleware<Context>) -> RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        routes.post("login/options") { request, _ in try await loginOptions(request) }
        routes.post("login/verify") { request, _ in try await loginVerify(request) }
        routes.add(middleware: session)
        routes.post("registration/options") { request, context in try await registrationOptions(request, context.optionalCaller()) }
        routes.post("registration/verify") { request, context in try await registrationVerify(request, context.optionalCaller()) }
        return routes
    }

    /// With a session: options to add a passkey to this account. Without: options for a new account.
    func registrationOptions(_ request: Request, _ caller: RequestAuthentication.Caller?) async throws -> Response {
        let body = try await RequestBody.read(request).map { try RequestBody.decode(RegistrationOptionsRequest.self, from: $0) }
        if let caller {
            guard let session = try await ceremonies.sessions.details(for: caller.token) else { throw APIError.notAuthenticated }
            let options = try await ceremonies.addPasskeyOptions(session: session, name: body?.name)
            return try JSONResponse.make(.ok, OptionsResponse(publicKey: options))
        }
        guard let displayName = body?.displayName else {
            throw APIError(.missingField, "The field displayName is missing.")
        }
        return try JSONResponse.make(.ok, OptionsResponse(publicKey: try await ceremonies.registrationOptions(displayName: displayName)))
    }

    func registrationVerify(_ request: Request, _ caller: RequestAuthentication.Caller?) async throws -> Response {
        let body = try await RequestBody.decode(RegistrationVerifyRequest.self, from: request)
        switch try await ceremonies.verifyRegistration(body.credential, sessionAccountId: caller?.accountId) {
        case .newAccount(let token, let account):
            return try sessionResponse(.created, token: token, account: account)
        case .addedPasskey(let credential):
            return try JSONResponse.make(.created, PasskeyResponse(passkey: PasskeyJSON(credential, providers: providers, androidApps: configuration.androidApps)))
        }
    }

    func loginOptions(_ request: Request) async throws -> Response {
        try JSONResponse.make(.ok, OptionsResponse(publicKey: try await ceremonies.loginOptions()))
    }

    func loginVerify(_ request: Request) async throws -> Response {
        let body = try await RequestBody.decode(LoginVerifyRequest.self, from: request)
        let (token, account) = try await ceremonies.verifyLogin(body.credential)
        return try sessionResponse(.ok, token: token, account: account)
    }

    private func sessionResponse(_ status: HTTPResponse.Status, token: SessionToken, account: AccountRecord) throws -> Response {
        let cookie = SessionCookie.set(token, maxAge: Int(configuration.sessionTTL), secure: configuration.secureCookies)
        return try JSONResponse.make(status, SessionResponse(token: token.value, account: AccountJSON(account)), headers: [.setCookie: cookie])
    }
}
