import Foundation
import Hummingbird
import HTTPTypes
import LatchkeyAPI
import WebAuthn

/// The admin console's sessions: signing in with a passkey (user verification required), stepping up
/// before a change, and turning a request's console cookie into an `AdminCaller` for `AdminKeyMiddleware`.
/// The console then calls the admin API like any other client.
struct ConsoleService: Sendable {
    let store: Store
    let ceremonies: CeremonyService
    let setup: AdminSetupLink
    /// The origins a change may come from (the relying party's: the console's address must be among them).
    let origins: [String]
    let secureCookies: Bool
    let now: @Sendable () -> Date

    /// What the console knows about its session (`GET /admin/api/session`).
    struct SessionJSON: APIResponseBody {
        let accountId: String
        let displayName: String
        let scopes: [String]
        let amr: [String]
        let expiresAt: Date
        /// Until when changes go through without another assertion.
        let verifiedUntil: Date
    }

    func options() -> PublicKeyCredentialRequestOptionsJSON {
        ceremonies.consoleOptions()
    }

    /// Verifies the assertion. With `setupCode`, the account first becomes the first administrator. With
    /// a live console session of the same account (`presented`), that session is refreshed (a step-up);
    /// otherwise a new one is made. Answers the session and, when new, its token for the cookie.
    func signIn(
        _ request: ConsoleVerifyRequest, presented: String?, origin: AuditOrigin
    ) async throws -> (session: SessionJSON, token: String?) {
        let (account, credentialId) = try await ceremonies.verifyConsoleAssertion(request.credential)
        if let code = request.setupCode {
            try await setup.use(code: code, accountId: account.id, origin: origin)
        }
        guard try await store.adminRoles.role(accountId: account.id) != nil else {
            throw APIError(.notAdmin, "This passkey's account is not an administrator.")
        }
        let at = now()
        if let presented, ConsoleSession.isWellFormed(presented),
           try await store.consoleSessions.verify(tokenHash: SecretDigest.of(presented), accountId: account.id, at: at),
           let session = try await store.consoleSessions.session(tokenHash: SecretDigest.of(presented), now: at) {
            return (Self.json(session), nil)
        }
        let (token, hash) = ConsoleSession.generateToken()
        try await store.consoleSessions.insert(
            tokenHash: hash, accountId: account.id, credentialId: credentialId, amr: ConsoleSession.passkeyAMR, at: at,
            expiresAt: at + ConsoleSession.lifetime,
            event: origin.acting(as: "admin:account:\(account.id)").event(
                .consoleSignedIn, at: at, account: account.id, credential: credentialId,
                detail: ["setup": .flag(request.setupCode != nil)]))
        guard let session = try await store.consoleSessions.session(tokenHash: hash, now: at) else { throw APIError.notAuthenticated }
        return (Self.json(session), token)
    }

    /// The live session of the request's console cookie, or nil.
    func session(of request: Request) async throws -> ConsoleSession? {
        guard let token = ConsoleCookie.token(in: request.headers[.cookie], secure: secureCookies), ConsoleSession.isWellFormed(token) else {
            return nil
        }
        return try await store.consoleSessions.session(tokenHash: SecretDigest.of(token), now: now())
    }

    /// The presented console token, if the request carries the cookie.
    func token(of request: Request) -> String? {
        ConsoleCookie.token(in: request.headers[.cookie], secure: secureCookies)
    }

    func signOut(_ request: Request) async throws {
        guard let token = token(of: request), ConsoleSession.isWellFormed(token) else { return }
        try await store.consoleSessions.delete(tokenHash: SecretDigest.of(token))
    }

    /// The admin API's caller of a request carrying the console cookie; nil without a live session behind
    /// it (the gate answers 401). A change from another origin, or without a fresh assertion, is 403.
    func caller(of request: Request) async throws -> AdminCaller? {
        guard let session = try await session(of: request) else { return nil }
        if !AdminKeyMiddleware<BasicRequestContext>.isReading(request) {
            try checkOrigin(request)
            guard session.isFresh(at: now()) else {
                throw APIError(.stepUpRequired, "Confirm with your passkey first: a change needs a user-verified passkey within the last \(Int(ConsoleSession.stepUpWindow / 60)) minutes.")
            }
        }
        return AdminCaller(actor: "admin:account:\(session.accountId)", scopes: session.scopes, accountId: session.accountId)
    }

    /// A change carrying the console cookie must come from the console's own page: an allowed `Origin`,
    /// which browsers send on every non-GET fetch (a missing one is refused: no fallback here).
    func checkOrigin(_ request: Request) throws {
        guard let origin = request.headers[.origin] else {
            throw APIError(.originRequired, "A change with the console's cookie must carry an Origin header.")
        }
        guard origins.contains(origin) else {
            throw APIError(.originNotAllowed, "A change with the console's cookie must come from the console's own page.")
        }
    }

    static func json(_ session: ConsoleSession) -> SessionJSON {
        SessionJSON(
            accountId: session.accountId, displayName: session.displayName, scopes: session.scopes.names,
            amr: session.amr.split(separator: " ").map(String.init), expiresAt: session.expiresAt,
            verifiedUntil: session.verifiedAt + ConsoleSession.stepUpWindow)
    }
}
