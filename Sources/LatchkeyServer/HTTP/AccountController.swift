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
    let now: @Sendable () -> Date

    /// The routes, for the router's `/api` group, behind `signedIn` (the authentication middleware,
    /// required): every handler acts for the caller it put into the context.
    func routes<Context: LatchkeyRequestContext>(signedIn: LatchkeyAuthenticationMiddleware<Context>) -> RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self).add(middleware: signedIn)
        routes.get("account") { _, context in try await account(context.signedInCaller()) }
        routes.patch("account") { request, context in try await update(request, context.signedInCaller()) }
        routes.delete("account") { _, context in try await delete(context.signedInCaller()) }
        routes.post("logout") { _, context in try await logout(context.signedInCaller()) }
        routes.post("logout/everywhere") { _, context in try await logoutEverywhere(context.signedInCaller()) }
        routes.get("account/passkeys") { _, context in try await passkeys(context.signedInCaller()) }
        routes.get("account/signals") { _, context in try await signals(context.signedInCaller()) }
        routes.patch("account/passkeys/:id") { request, context in
            try await rename(request, id: context.parameters.get("id"), context.signedInCaller())
        }
        routes.delete("account/passkeys/:id") { _, context in try await remove(id: context.parameters.get("id"), context.signedInCaller()) }
        return routes
    }

    func account(_ caller: RequestAuthentication.Caller) async throws -> AccountJSON {
        AccountJSON(caller.account)
    }

    func update(_ request: Request, _ caller: RequestAuthentication.Caller) async throws -> AccountJSON {
        let body = try await RequestBody.decode(AccountUpdateRequest.self, from: request)
        guard body.displayName != nil || body.credo != nil else {
            throw APIError(.invalidField, "Send displayName, credo, or both.")
        }
        let displayName = try body.displayName.map { try InputRules.displayName($0) }
        let credo = try body.credo.map(InputRules.credo)
        guard let account = try await store.updateAccount(id: caller.accountId, displayName: displayName, credo: credo, now: now()) else {
            throw APIError.notAuthenticated
        }
        return AccountJSON(account)
    }

    func delete(_ caller: RequestAuthentication.Caller) async throws -> NoContent {
        try await store.deleteAccount(id: caller.accountId)
        return NoContent(headers: [.setCookie: SessionCookie.clear(secure: configuration.secureCookies)])
    }

    func logout(_ caller: RequestAuthentication.Caller) async throws -> NoContent {
        try await sessions.revoke(caller.token)
        return NoContent(headers: [.setCookie: SessionCookie.clear(secure: configuration.secureCookies)])
    }

    /// Ends every session of the account (other browsers, the command line, a device that was lost).
    func logoutEverywhere(_ caller: RequestAuthentication.Caller) async throws -> NoContent {
        try await sessions.revokeAll(accountId: caller.accountId)
        return NoContent(headers: [.setCookie: SessionCookie.clear(secure: configuration.secureCookies)])
    }

    func passkeys(_ caller: RequestAuthentication.Caller) async throws -> JSONArrayBody<PasskeyJSON> {
        JSONArrayBody(elements: try await store.credentials(accountId: caller.accountId).map {
            PasskeyJSON($0, providers: providers, androidApps: configuration.androidApps)
        })
    }

    /// What a native client needs to keep the platform's passkey manager in step, in the shape of the
    /// WebAuthn L3 signal methods' arguments (`signalAllAcceptedCredentials`,
    /// `signalCurrentUserDetails`; on Apple platforms ASCredentialUpdater takes the same values).
    func signals(_ caller: RequestAuthentication.Caller) async throws -> SignalsJSON {
        let credentials = try await store.credentials(accountId: caller.accountId)
        return SignalsJSON(rpId: configuration.rpId, account: caller.account, credentials: credentials)
    }

    func rename(_ request: Request, id: String?, _ caller: RequestAuthentication.Caller) async throws -> PasskeyJSON {
        let credentialId = try Self.credentialId(id)
        let body = try await RequestBody.decode(RenamePasskeyRequest.self, from: request)
        let name = try InputRules.passkeyName(body.name)
        guard let renamed = try await store.renameCredential(id: credentialId, accountId: caller.accountId, name: name) else {
            throw APIError.unknownPasskey
        }
        return PasskeyJSON(renamed, providers: providers, androidApps: configuration.androidApps)
    }

    func remove(id: String?, _ caller: RequestAuthentication.Caller) async throws -> NoContent {
        let outcome = try await store.deleteCredential(
            id: try Self.credentialId(id), accountId: caller.accountId, keepingSession: SessionToken.hash(of: caller.token))
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
