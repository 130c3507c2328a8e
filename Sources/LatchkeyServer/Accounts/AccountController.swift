import Foundation
import Hummingbird
import LatchkeyAPI
import WebAuthn

/// `/api/account*` and `/api/logout`: what a signed-in caller can see and change.
struct AccountController: Sendable {
    let store: Store
    let sessions: SessionService
    let configuration: ServerConfiguration
    let providers: PasskeyProviders
    /// Every change goes through it; the controller reads the store (docs/ARCHITECTURE.md §8).
    let accounts: AccountService

    /// The routes, for the router's `/api` group, behind `signedIn` (the authentication middleware,
    /// required): every handler acts for the caller it put into the context.
    func routes<Context: LatchkeyRequestContext>(signedIn: LatchkeyAuthenticationMiddleware<Context>) -> RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self).add(middleware: signedIn)
        routes.get("account") { _, context in try await account(context.signedInCaller()) }
        routes.patch("account") { request, context in try await update(request, context.signedInCaller(), origin: origin(request, context)) }
        routes.delete("account") { request, context in try await delete(context.signedInCaller(), origin: origin(request, context)) }
        routes.post("logout") { request, context in try await logout(context.signedInCaller(), origin: origin(request, context)) }
        routes.post("logout/everywhere") { request, context in
            try await logoutEverywhere(context.signedInCaller(), origin: origin(request, context))
        }
        routes.get("account/passkeys") { _, context in try await passkeys(context.signedInCaller()) }
        routes.get("account/signals") { _, context in try await signals(context.signedInCaller()) }
        routes.get("account/events") { request, context in try await events(request, context.signedInCaller()) }
        routes.patch("account/passkeys/:id") { request, context in
            try await rename(request, id: context.parameters.get("id"), context.signedInCaller(), origin: origin(request, context))
        }
        routes.delete("account/passkeys/:id") { request, context in
            try await remove(id: context.parameters.get("id"), context.signedInCaller(), origin: origin(request, context))
        }
        return routes
    }

    /// Where a signed-in person's request came from, for the audit trail.
    private func origin(_ request: Request, _ context: some RequestContext) -> AuditOrigin {
        AuditOrigin(request, context: context, actor: "person", trustForwardedFor: configuration.trustForwardedFor)
    }

    /// The account, with the recovery risk its passkeys make (one passkey, or only device-bound ones),
    /// and what apps may learn about the person.
    func account(_ caller: RequestAuthentication.Caller) async throws -> AccountDetailsJSON {
        try await details(caller.account)
    }

    private func details(_ account: AccountRecord) async throws -> AccountDetailsJSON {
        let passkeys = try await store.credentials(accountId: account.id)
        let profile = try await store.accountProfile(id: account.id)
        return AccountDetailsJSON(account: AccountJSON(account), recoveryRisk: RecoveryRisk(passkeys: passkeys), profile: profile)
    }

    /// The display name, the credo, the username (null removes it), in one transaction with one event
    /// naming the fields changed. Answers the account as `GET /api/account` does (with the username, the
    /// email and the groups), as it is after the change.
    func update(_ request: Request, _ caller: RequestAuthentication.Caller, origin: AuditOrigin) async throws -> AccountDetailsJSON {
        let body = try await RequestBody.decode(AccountUpdateRequest.self, from: request)
        guard body.displayName != nil || body.credo != nil || !body.username.isKept else {
            throw APIError(.invalidField, "Send displayName, credo or username (null removes the username).")
        }
        let displayName = try body.displayName.map { try InputRules.displayName($0) }
        let credo = try body.credo.map(InputRules.credo)
        let username = try body.username.map { name throws(APIError) in try InputRules.username(name) }
        let account = try await accounts.update(
            accountId: caller.accountId, displayName: displayName, credo: credo, username: username, origin: origin)
        guard let account else { throw APIError.notAuthenticated }
        return try await details(account)
    }

    func delete(_ caller: RequestAuthentication.Caller, origin: AuditOrigin) async throws -> NoContent {
        try await accounts.delete(accountId: caller.accountId, origin: origin)
        return NoContent(headers: [.setCookie: SessionCookie.clear(secure: configuration.secureCookies, domain: configuration.cookieDomain)])
    }

    func logout(_ caller: RequestAuthentication.Caller, origin: AuditOrigin) async throws -> NoContent {
        try await sessions.revoke(caller.token, origin: origin)
        return NoContent(headers: [.setCookie: SessionCookie.clear(secure: configuration.secureCookies, domain: configuration.cookieDomain)])
    }

    /// Ends every session of the account (other browsers, the command line, a device that was lost).
    func logoutEverywhere(_ caller: RequestAuthentication.Caller, origin: AuditOrigin) async throws -> NoContent {
        try await sessions.revokeAll(accountId: caller.accountId, origin: origin)
        return NoContent(headers: [.setCookie: SessionCookie.clear(secure: configuration.secureCookies, domain: configuration.cookieDomain)])
    }

    func passkeys(_ caller: RequestAuthentication.Caller) async throws -> JSONArrayBody<PasskeyJSON> {
        let credentials = try await store.credentials(accountId: caller.accountId)
        let providers = try await self.providers.completed(for: credentials.map(\.aaguid), from: store)
        return JSONArrayBody(elements: credentials.map { PasskeyJSON($0, providers: providers, androidApps: configuration.androidApps) })
    }

    /// What a native client needs to keep the platform's passkey manager in step, in the shape of the
    /// WebAuthn L3 signal methods' arguments (`signalAllAcceptedCredentials`,
    /// `signalCurrentUserDetails`; on Apple platforms ASCredentialUpdater takes the same values).
    func signals(_ caller: RequestAuthentication.Caller) async throws -> SignalsJSON {
        let credentials = try await store.credentials(accountId: caller.accountId)
        return SignalsJSON(rpId: configuration.rpId, account: caller.account, credentials: credentials)
    }

    /// The caller's own history, newest first (`?cursor=` the previous page's `next`, `?limit=` 1–100).
    func events(_ request: Request, _ caller: RequestAuthentication.Caller) async throws -> AccountEventPageJSON {
        let parameters = APIQuery(request.uri)
        var query = Store.AuditQuery(accountId: caller.accountId)
        query.before = try parameters.cursor()
        query.limit = min(try parameters.limit(), 100)
        query.limit += 1
        let found = try await store.auditEvents(query)
        var names: [[UInt8]: String] = [:]
        let credentials = try await store.credentials(accountId: caller.accountId)
        let providers = try await self.providers.completed(for: credentials.map(\.aaguid), from: store)
        for credential in credentials {
            names[credential.id] = providers.provider(aaguid: credential.aaguid)?.name
        }
        let page = found.prefix(query.limit - 1).map { AccountEventJSON($0, providers: names) }
        return AccountEventPageJSON(events: page, next: found.count >= query.limit ? page.last?.id : nil)
    }

    func rename(_ request: Request, id: String?, _ caller: RequestAuthentication.Caller, origin: AuditOrigin) async throws -> PasskeyJSON {
        let credentialId = try Self.credentialId(id)
        let body = try await RequestBody.decode(RenamePasskeyRequest.self, from: request)
        let name = try InputRules.passkeyName(body.name)
        guard let renamed = try await accounts.renamePasskey(id: credentialId, accountId: caller.accountId, name: name, origin: origin) else {
            throw APIError.unknownPasskey
        }
        return PasskeyJSON(renamed, providers: try await providers.completed(for: [renamed.aaguid], from: store), androidApps: configuration.androidApps)
    }

    func remove(id: String?, _ caller: RequestAuthentication.Caller, origin: AuditOrigin) async throws -> NoContent {
        let credentialId = try Self.credentialId(id)
        let outcome = try await accounts.removePasskey(
            id: credentialId, accountId: caller.accountId, keepingSession: SessionToken.hash(of: caller.token), origin: origin)
        switch outcome {
        case .deleted: return NoContent()
        case .notFound: throw APIError.unknownPasskey
        case .lastPasskey:
            throw APIError(.lastPasskey, "This is the account's only passkey; add another before removing it, or delete the account.")
        }
    }

    private static func credentialId(_ text: String?) throws -> [UInt8] {
        guard let text, let bytes = Base64URL.decode(text), !bytes.isEmpty else {
            throw APIError(.invalidPasskeyId, "The passkey id in the path must be base64url.")
        }
        return bytes
    }
}
