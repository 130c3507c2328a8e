import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import WebAuthn

/// The Hanko-demo-compatible endpoints (`--compat hanko`), as Hanko's WWDC21 demo server offered them to
/// its web page and to its iOS app "Shiny", on Latchkey's accounts, passkeys and sessions:
///
/// | request | answer |
/// |---|---|
/// | `GET /registration_initialize?user_name=N` | `{publicKey}` creation options (UV required, platform, resident key, attestation none) |
/// | `POST /registration_finalize` (L3 JSON, base64url) | 200 `{credential}`, and the session cookie |
/// | `GET /authentication_initialize` | `{publicKey}` request options (usernameless: empty allowCredentials) |
/// | `POST /authentication_finalize` (L3 JSON, base64url) | 200 `{credential}`, and the session cookie |
/// | `GET /content` | the signed-in page with the user's name; without a session a 307 to `/` |
/// | `GET /logout` | ends the session, clears the cookie, 307 to `/` |
///
/// `/.well-known/apple-app-site-association` is Latchkey's own (from `--apple-app-id`).
///
/// The session is Latchkey's session cookie: `HttpOnly`, `SameSite=Strict`, `Secure` (and `__Host-`)
/// over https, its token stored only as a hash and expiring. `GET /logout` changes state because both
/// clients call it so; it is safe as a GET because the cookie is `SameSite=Strict`: a link, image or
/// form on another site reaches it without the cookie, so it cannot sign anyone out. The finalize POSTs
/// accept the page's `text/plain` body (its `fetch` sets no type), so they check `Origin`: a browser
/// always sends it on a POST, and it must be one of the configured origins; the native app sends none.
/// `user_name` is a display name, not a key: it need not be unique, so registering reveals nothing about
/// who else is registered (the seed answered "User already registered").
struct HankoController: Sendable {
    let ceremonies: CeremonyService
    let sessions: SessionService
    let store: Store
    let configuration: ServerConfiguration

    func register<Context: LatchkeyRequestContext>(on router: some RouterMethods<Context>) {
        router.get("/registration_initialize") { request, _ in try await CompatibilityResponse.answering { try await registrationInitialize(request) } }
        router.post("/registration_finalize") { request, context in
            try await CompatibilityResponse.answering { try await registrationFinalize(request, origin: origin(request, context)) }
        }
        router.get("/authentication_initialize") { _, _ in try await CompatibilityResponse.answering { try await authenticationInitialize() } }
        router.post("/authentication_finalize") { request, context in
            try await CompatibilityResponse.answering { try await authenticationFinalize(request, origin: origin(request, context)) }
        }
        router.get("/content") { request, _ in try await CompatibilityResponse.answering { try await content(request) } }
        router.get("/logout") { request, context in
            try await CompatibilityResponse.answering { try await logout(request, origin: origin(request, context).acting(as: "person")) }
        }
    }

    /// Where a request came from, for the audit trail.
    private func origin(_ request: Request, _ context: some RequestContext) -> AuditOrigin {
        AuditOrigin(request, context: context, actor: "anonymous", trustForwardedFor: configuration.trustForwardedFor)
    }

    // MARK: Registration

    func registrationInitialize(_ request: Request) async throws -> Response {
        let query = try CompatibilityQuery(request.uri.query)
        guard let name = query["user_name"]?.trimmingCharacters(in: .whitespacesAndNewlines), !name.isEmpty else {
            throw APIError(.missingField, "user name not provided")
        }
        let options = try await ceremonies.registrationOptions(displayName: name)
        return try JSONResponse.make(.ok, HankoCreationOptions(options, userVerification: configuration.userVerification.rawValue))
    }

    func registrationFinalize(_ request: Request, origin: AuditOrigin) async throws -> Response {
        try checkOrigin(request)
        var credential = try await CompatibilityResponse.body(HankoRegistrationBody.self, of: request, plainText: true).credential
        if credential.rawId.isEmpty, credential.id.isEmpty {
            // Shiny sends empty ids; the credential id is the one inside the attestation object.
            guard let bytes = Base64URL.decode(credential.response.attestationObject),
                  let credentialId = AttestedCredentialID.from(attestationObject: bytes)
            else { throw APIError(.malformedAttestation, "attestationObject holds no readable credential.") }
            credential.id = Base64URL.encode(credentialId)
            credential.rawId = credential.id
        }
        switch try await ceremonies.verifyRegistration(credential, sessionAccountId: nil, origin: origin) {
        case .newAccount(let token, let account):
            try await endCookieSession(request)
            guard let credentialId = Base64URL.decode(credential.rawId) else { throw APIError.unknownChallenge }
            return try signedIn(token: token, body: HankoFinalized(credentialId: credentialId, account: account))
        case .addedPasskey:
            throw APIError(.wrongCeremony, "This challenge was issued to add a passkey, not to register.")
        }
    }

    // MARK: Authentication

    func authenticationInitialize() async throws -> Response {
        try JSONResponse.make(.ok, OptionsResponse(publicKey: try await ceremonies.loginOptions()))
    }

    func authenticationFinalize(_ request: Request, origin: AuditOrigin) async throws -> Response {
        try checkOrigin(request)
        var credential = try await CompatibilityResponse.body(HankoAuthenticationBody.self, of: request, plainText: true).credential
        if credential.rawId.isEmpty, credential.id.isEmpty {
            credential.id = Base64URL.encode(try await credentialId(byUserHandleOf: credential))
            credential.rawId = credential.id
        }
        let (token, account) = try await ceremonies.verifyLogin(credential, origin: origin)
        try await endCookieSession(request)
        guard let credentialId = Base64URL.decode(credential.rawId) else { throw APIError.unknownCredential }
        return try signedIn(token: token, body: HankoFinalized(credentialId: credentialId, account: account))
    }

    /// Shiny's assertion has no credential id, only the user handle. The account's passkey whose key
    /// verifies the signature is the one used (usually there is one). Each try is a pure check that writes
    /// nothing; the real verification — challenge consumed once, sign count, UV — then runs once, in
    /// `CeremonyService`, as for any login. A handle no account has is the usual 404 `unknown_credential`.
    ///
    /// Anyone may send such an assertion for an account of their own, so the tries are capped at
    /// `maximumCandidates`: one signature check per passkey made each request cost 62 µs × the account's
    /// passkeys of event-loop time (308 ms at 5 000; third review, finding 2). An account with more
    /// passkeys than that must name the one it used (the id every other client sends).
    private func credentialId(byUserHandleOf credential: AuthenticationResponseJSON) async throws -> [UInt8] {
        guard let text = credential.response.userHandle, let handle = Base64URL.decode(text), !handle.isEmpty,
              let accountId = try await store.accountId(userHandle: handle)
        else { throw APIError.unknownCredential }
        let candidates = try await store.credentials(accountId: accountId)
        guard let first = candidates.first else { throw APIError.unknownCredential }
        guard candidates.count <= Self.maximumCandidates else {
            throw APIError(.credentialIdRequired, "This account has more than \(Self.maximumCandidates) passkeys: send the id of the one used (id and rawId).")
        }
        guard candidates.count > 1,
              let clientData = Base64URL.decode(credential.response.clientDataJSON).flatMap({ try? CollectedClientData(bytes: $0) }),
              let challenge = Base64URL.decode(clientData.challenge)
        else { return first.id }
        let verifier = AuthenticationVerifier(relyingParty: configuration.relyingParty)
        for candidate in candidates {
            var named = credential
            named.id = Base64URL.encode(candidate.id)
            named.rawId = named.id
            guard let stored = try? StoredCredential(
                id: candidate.id, publicKeyCOSE: candidate.publicKey, signCount: candidate.signCount,
                backupEligible: candidate.backupEligible, userHandle: handle)
            else { continue }
            if (try? verifier.verify(named, expectedChallenge: challenge, storedCredential: stored)) != nil { return candidate.id }
        }
        return first.id
    }

    /// The most passkeys tried for an assertion without a credential id: at most about half a
    /// millisecond of signature checks (ES256; RSA-4096 keys cost more, still a few milliseconds).
    static let maximumCandidates = 8

    // MARK: The session

    func content(_ request: Request) async throws -> Response {
        guard let token = cookieToken(request), let accountId = try await sessions.accountId(for: token),
              let account = try await store.account(id: accountId)
        else { return redirectHome(clearingCookie: cookieToken(request) != nil) }
        let headers = PageController.renderedPageSecurityHeaders
        let page = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Content</title></head>
            <body><h1>Welcome, \(HTMLText.escaped(account.displayName))!</h1>
            <p>You are signed in with a passkey.</p><p><a href="/logout">Sign out</a></p></body></html>
            """
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: page)))
    }

    /// A GET that signs out, as the demo has it; see the type's comment for why that is safe here.
    ///
    /// A sibling subdomain is the same *site*, so `SameSite=Strict` does not stop it from embedding
    /// `<img src=/logout>`; a browser says where a request came from in `Sec-Fetch-Site`, and only a
    /// navigation of our own (`same-origin`), one the person started (`none`), or a client that does not
    /// say (a native app) signs out. Anything else is sent home with the session kept.
    func logout(_ request: Request, origin: AuditOrigin) async throws -> Response {
        if let site = RequestAuthentication.secFetchSite.flatMap({ request.headers[$0] }), site != "same-origin", site != "none" {
            return redirectHome(clearingCookie: false)
        }
        if let token = cookieToken(request) { try await sessions.revoke(token, origin: origin) }
        return redirectHome(clearingCookie: true)
    }

    // MARK: Helpers

    private func signedIn(token: SessionToken, body: HankoFinalized) throws -> Response {
        let cookie = SessionCookie.set(token, maxAge: Int(configuration.sessionTTL), secure: configuration.secureCookies, domain: configuration.cookieDomain)
        return try JSONResponse.make(.ok, body, headers: [.setCookie: cookie])
    }

    private func cookieToken(_ request: Request) -> String? {
        SessionCookie.token(in: request.headers[.cookie], secure: configuration.secureCookies, domain: configuration.cookieDomain).flatMap {
            RequestAuthentication.isWellFormed($0) ? $0 : nil
        }
    }

    /// Revokes the session of the cookie the request carries, if any (signing in again replaces it).
    private func endCookieSession(_ request: Request) async throws {
        if let token = cookieToken(request) { try await sessions.revoke(token, origin: nil) }
    }

    private func redirectHome(clearingCookie: Bool) -> Response {
        var headers: HTTPFields = [.location: "/", .cacheControl: "no-store"]
        if clearingCookie { headers[.setCookie] = SessionCookie.clear(secure: configuration.secureCookies, domain: configuration.cookieDomain) }
        return Response(status: .temporaryRedirect, headers: headers)
    }

    /// A POST from a browser carries `Origin`; it must be this relying party's. Without `Origin` the
    /// sender is a native client (Shiny sends neither header) or a browser that left it out: these
    /// routes take `text/plain` bodies, which a cross-site form can send, so a request without `Origin`
    /// must also say it is not cross-site — no `Sec-Fetch-Site` at all (not a browser), or `same-origin`
    /// (third review, finding 7: login CSRF must not rest on `Origin` alone).
    private func checkOrigin(_ request: Request) throws {
        if let origin = request.headers[.origin] {
            guard configuration.relyingParty.origins.contains(origin) else {
                throw APIError(.originNotAllowed, "This request must come from this site's own pages.")
            }
        } else if let site = RequestAuthentication.secFetchSite.flatMap({ request.headers[$0] }), site != "same-origin" {
            throw APIError(.originRequired, "A browser request must carry this site's Origin header.")
        }
    }
}
