import Foundation
import Hummingbird
import LatchkeyAPI
import WebAuthn

/// The PassKeysDemo-compatible API (`--compat passkeysdemo`): one path (default `/pkd/index.php`) that
/// answers `?operation=` create | login | read | update | logout | delete exactly as PassKeysDemo's iOS
/// client `PKD_Handler` sends them, on Latchkey's accounts, passkeys and sessions.
///
/// | app's request | here |
/// |---|---|
/// | `GET ?operation=create&userId=U&displayName=D` | `{publicKey}` creation options; `userId` is ignored (Latchkey makes a random user handle) |
/// | `POST ?operation=create` `{clientDataJSON, attestationObject}` | 200 `{displayName, credo, bearerToken}` |
/// | `GET ?operation=login` | `{challenge, allowedIDs: []}` |
/// | `POST ?operation=login&credentialId=C` `{clientDataJSON, authenticatorData, signature, credentialId}` | 200, the token as the whole body |
/// | `GET ?operation=read` | `{displayName, credo}` (percent-encoded) |
/// | `GET ?operation=update&displayName=D&credo=C` | 200 `{displayName, credo}` |
/// | `GET ?operation=logout`, `GET ?operation=delete` | 200 `{}` |
///
/// **Which requests stay GET, and why that is safe.** The app sends the phase-1 requests of create and
/// login, and update, logout and delete, as GET; it cannot be changed, so they are answered on GET (and on
/// POST too for update, logout and delete). The phase-1 GETs change nothing: a challenge is sealed, not
/// stored (DESIGN §1). Update, logout and delete do change state, and are protected thus: they need
/// `Authorization: Bearer`, a header no other site can make a browser send (this path ignores the session
/// cookie entirely, so there is no CSRF to forge and no link or prefetch that can trigger them); the
/// token is only a SHA-256 in the database and expires; they are rate-limited with the API; every answer is
/// `Cache-Control: no-store`. Update's values do travel in the query string, because the app puts them
/// there: a display name and a credo, the user's own and not secrets.
///
/// **A known gap.** The newest `PKD_Handler` (Shared/PKD_Handler/PKD_Handler.swift) ends its login with
/// `noAvailablePassKeys` when `allowedIDs` is empty instead of making a discoverable request. Latchkey keeps
/// the list empty all the same — listing every credential id to anyone is the seed's weakness 2 — so that
/// build signs up and uses its session, but cannot log in again until the app drops that guard.
///
/// Binary values are standard base64 (the app's `base64EncodedString()`), and challenges base64url.
/// Everything else is Latchkey's: the challenge is single-use and expires, UV is required, origins are
/// compared exactly, the sign count is stored, fields are validated with 4xx answers and no internals.
struct PassKeysDemoController: Sendable {
    let ceremonies: CeremonyService
    let sessions: SessionService
    let store: Store
    let configuration: ServerConfiguration
    let now: @Sendable () -> Date

    func register<Context: LatchkeyRequestContext>(on router: some RouterMethods<Context>) {
        let path = RouterPath(stringLiteral: configuration.passKeysDemoPath)
        router.get(path) { request, context in try await respond(to: request, origin: origin(request, context)) }
        router.post(path) { request, context in try await respond(to: request, origin: origin(request, context)) }
    }

    /// Where a request came from, for the audit trail.
    private func origin(_ request: Request, _ context: some RequestContext) -> AuditOrigin {
        AuditOrigin(request, context: context, actor: "anonymous", trustForwardedFor: configuration.trustForwardedFor)
    }

    static let operations = "create, login, read, update, logout or delete"

    /// PHP chose a phase by whether a body came; here the method decides (GET starts, POST finishes).
    func respond(to request: Request, origin: AuditOrigin) async throws -> Response {
        try await CompatibilityResponse.answering {
            let query = try CompatibilityQuery(request.uri.query)
            let post = request.method == .post
            switch query["operation"] ?? "" {
            case "create":
                if post { return try await finishCreate(request, origin: origin) }
                return try await startCreate(request, query)
            case "login":
                if post { return try await finishLogin(request, query, origin: origin) }
                return try await startLogin()
            case "read":
                guard !post else { throw APIError(.methodNotAllowed, "operation=read is a GET.") }
                return try await read(request)
            case "update": return try await update(request, query, origin: origin.acting(as: "person"))
            case "logout": return try await logout(request, origin: origin.acting(as: "person"))
            case "delete": return try await delete(request, origin: origin.acting(as: "person"))
            case "": throw APIError(.missingOperation, "Add the query parameter operation: \(Self.operations).")
            default: throw APIError(.unknownOperation, "The operation must be \(Self.operations).")
            }
        }
    }

    // MARK: Create

    /// Phase 1. The seed's `userId` (a UUID the app makes) is not used: a client-chosen id would be the
    /// user handle, and Latchkey's user handles are random (DESIGN §5, PRIOR-ART weakness 14).
    func startCreate(_ request: Request, _ query: CompatibilityQuery) async throws -> Response {
        try await refuseSignedIn(request)
        // PassKeysDemo names an account "New User" when the app leaves the name out.
        let displayName = query["displayName"] ?? "New User"
        let options = try await ceremonies.registrationOptions(displayName: displayName)
        return try JSONResponse.make(.ok, OptionsResponse(publicKey: options))
    }

    /// Phase 2: the ceremony is found by the challenge inside clientDataJSON, no PHP session needed.
    func finishCreate(_ request: Request, origin: AuditOrigin) async throws -> Response {
        try await refuseSignedIn(request)
        let body = try await CompatibilityResponse.body(PassKeysDemoCreateBody.self, of: request)
        let clientData = try Self.base64(body.clientDataJSON, "clientDataJSON")
        let attestation = try Self.base64(body.attestationObject, "attestationObject")
        guard let credentialId = AttestedCredentialID.from(attestationObject: attestation) else {
            throw APIError(.malformedAttestation, "attestationObject holds no readable credential.")
        }
        let id = Base64URL.encode(credentialId)
        let credential = RegistrationResponseJSON(
            id: id, rawId: id,
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: Base64URL.encode(clientData), attestationObject: Base64URL.encode(attestation)))
        switch try await ceremonies.verifyRegistration(credential, sessionAccountId: nil, origin: origin) {
        case .newAccount(let token, let account):
            return try JSONResponse.make(
                .ok, PassKeysDemoCreated(displayName: account.displayName, credo: account.credo, bearerToken: token.value))
        case .addedPasskey:
            // Not reachable without a session (the ceremony service refuses it first); never a 500.
            throw APIError(.wrongCeremony, "This challenge was issued to add a passkey, not to create an account.")
        }
    }

    // MARK: Login

    func startLogin() async throws -> Response {
        let options = try await ceremonies.loginOptions()
        return try JSONResponse.make(.ok, PassKeysDemoLoginChallenge(challenge: options.challenge, allowedIDs: []))
    }

    /// Phase 2. The app sends no `userHandle`, which Latchkey's discoverable login otherwise requires;
    /// it is taken from the account the credential id names. That proves nothing less: the user handle is
    /// not covered by the assertion's signature, which is verified against that same credential's key.
    func finishLogin(_ request: Request, _ query: CompatibilityQuery, origin: AuditOrigin) async throws -> Response {
        let body = try await CompatibilityResponse.body(PassKeysDemoLoginBody.self, of: request)
        let credentialId = try Self.base64(body.credentialId, "credentialId")
        if let named = query["credentialId"], CompatibilityEncoding.standardBase64(named) != credentialId {
            throw APIError(.queryCredentialIdMismatch, "The credentialId in the query and in the body differ.")
        }
        let clientData = try Self.base64(body.clientDataJSON, "clientDataJSON")
        let authenticatorData = try Self.base64(body.authenticatorData, "authenticatorData")
        let signature = try Self.base64(body.signature, "signature")
        var userHandle: String?
        if let record = try await store.credential(id: credentialId), let account = try await store.account(id: record.accountId) {
            userHandle = Base64URL.encode(account.userHandle)
        }
        let id = Base64URL.encode(credentialId)
        let credential = AuthenticationResponseJSON(
            id: id, rawId: id,
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: Base64URL.encode(clientData), authenticatorData: Base64URL.encode(authenticatorData),
                signature: Base64URL.encode(signature), userHandle: userHandle))
        // An unknown credential is 404 (the app's "no user"); a failed verification is 401 and touches no
        // one's session (PRIOR-ART weakness 3).
        let (token, _) = try await ceremonies.verifyLogin(credential, origin: origin)
        return CompatibilityResponse.text(token.value)
    }

    // MARK: The signed-in account

    func read(_ request: Request) async throws -> Response {
        let caller = try await requireCaller(request)
        guard let account = try await store.account(id: caller.accountId) else { throw APIError.notAuthenticated }
        return try JSONResponse.make(.ok, PassKeysDemoUser(account))
    }

    /// GET as the app sends it (POST too). Either value may be left out; one must be given.
    func update(_ request: Request, _ query: CompatibilityQuery, origin: AuditOrigin) async throws -> Response {
        let caller = try await requireCaller(request)
        guard query["displayName"] != nil || query["credo"] != nil else {
            throw APIError(.invalidField, "Send displayName, credo, or both.")
        }
        let displayName = try query["displayName"].map { try InputRules.displayName($0) }
        let credo = try query["credo"].map(InputRules.credo)
        guard let account = try await AccountService(store: store, now: now).update(
            accountId: caller.accountId, displayName: displayName, credo: credo, origin: origin)
        else {
            throw APIError.notAuthenticated
        }
        return try JSONResponse.make(.ok, PassKeysDemoUser(account))
    }

    func logout(_ request: Request, origin: AuditOrigin) async throws -> Response {
        let caller = try await requireCaller(request)
        try await sessions.revoke(caller.token, origin: origin)
        return try JSONResponse.make(.ok, PassKeysDemoDone())
    }

    /// The account, its passkeys and every session go. (The passkey stays on the device, as the app says.)
    func delete(_ request: Request, origin: AuditOrigin) async throws -> Response {
        let caller = try await requireCaller(request)
        try await AccountService(store: store, now: now).delete(accountId: caller.accountId, origin: origin)
        return try JSONResponse.make(.ok, PassKeysDemoDone())
    }

    // MARK: Helpers

    /// The account behind `Authorization: Bearer`, or nil without the header. The session cookie is not
    /// read here: a request on this path is authenticated only by what a script of this app sets.
    private func caller(_ request: Request) async throws -> (accountId: String, token: String)? {
        guard let header = request.headers[.authorization] else { return nil }
        let token = try RequestAuthentication.bearerToken(header)
        guard RequestAuthentication.isWellFormed(token), let accountId = try await sessions.accountId(for: token) else {
            throw APIError.notAuthenticated
        }
        return (accountId, token)
    }

    private func requireCaller(_ request: Request) async throws -> (accountId: String, token: String) {
        guard let caller = try await caller(request) else { throw APIError.notAuthenticated }
        return caller
    }

    /// Creating an account while signed in is refused (PRIOR-ART weakness 14); the app maps 409 to
    /// "already registered". It never sends its token here, so only a confused client meets this.
    private func refuseSignedIn(_ request: Request) async throws {
        if try await caller(request) != nil {
            throw APIError(.alreadySignedIn, "Sign out before creating another account.")
        }
    }

    private static func base64(_ text: String, _ field: String) throws -> [UInt8] {
        guard let bytes = CompatibilityEncoding.standardBase64(text) else {
            throw APIError(.invalidBase64, "The field \(field) must be standard base64.")
        }
        return bytes
    }
}
