import Foundation
import Hummingbird
import WebAuthn

/// `/api/account*` and `/api/logout`: what a signed-in caller can see and change.
struct AccountController: Sendable {
    let store: Store
    let sessions: SessionService
    let authentication: RequestAuthentication
    let configuration: ServerConfiguration
    let providers: PasskeyProviders
    let now: @Sendable () -> Date

    /// Adds the routes to `api`, the router's `/api` group.
    func register<Context: LatchkeyRequestContext>(on api: some RouterMethods<Context>) {
        api.get("account") { request, _ in try await account(request) }
        api.patch("account") { request, _ in try await update(request) }
        api.delete("account") { request, _ in try await delete(request) }
        api.post("logout") { request, _ in try await logout(request) }
        api.post("logout/everywhere") { request, _ in try await logoutEverywhere(request) }
        api.get("account/passkeys") { request, _ in try await passkeys(request) }
        api.get("account/signals") { request, _ in try await signals(request) }
        api.patch("account/passkeys/:id") { request, context in try await rename(request, id: context.parameters.get("id")) }
        api.delete("account/passkeys/:id") { request, context in try await remove(request, id: context.parameters.get("id")) }
    }

    func account(_ request: Request) async throws -> Response {
        let caller = try await authentication.require(request)
        guard let account = try await store.account(id: caller.accountId) else { throw APIError.notAuthenticated }
        return try JSONResponse.make(.ok, AccountJSON(account))
    }

    func update(_ request: Request) async throws -> Response {
        let caller = try await authentication.require(request)
        let body = try await RequestBody.decode(AccountUpdateRequest.self, from: request)
        guard body.displayName != nil || body.credo != nil else {
            throw APIError(.invalidField, "Send displayName, credo, or both.")
        }
        let displayName = try body.displayName.map { try InputRules.displayName($0) }
        let credo = try body.credo.map(InputRules.credo)
        guard let account = try await store.updateAccount(id: caller.accountId, displayName: displayName, credo: credo, now: now()) else {
            throw APIError.notAuthenticated
        }
        return try JSONResponse.make(.ok, AccountJSON(account))
    }

    func delete(_ request: Request) async throws -> Response {
        let caller = try await authentication.require(request)
        try await store.deleteAccount(id: caller.accountId)
        return JSONResponse.empty(headers: [.setCookie: SessionCookie.clear(secure: configuration.secureCookies)])
    }

    func logout(_ request: Request) async throws -> Response {
        let caller = try await authentication.require(request)
        try await sessions.revoke(caller.token)
        return JSONResponse.empty(headers: [.setCookie: SessionCookie.clear(secure: configuration.secureCookies)])
    }

    /// Ends every session of the account (other browsers, the command line, a device that was lost).
    func logoutEverywhere(_ request: Request) async throws -> Response {
        let caller = try await authentication.require(request)
        try await sessions.revokeAll(accountId: caller.accountId)
        return JSONResponse.empty(headers: [.setCookie: SessionCookie.clear(secure: configuration.secureCookies)])
    }

    func passkeys(_ request: Request) async throws -> Response {
        let caller = try await authentication.require(request)
        return try JSONResponse.make(.ok, try await store.credentials(accountId: caller.accountId).map { PasskeyJSON($0, providers: providers, androidApps: configuration.androidApps) })
    }

    /// What a native client needs to keep the platform's passkey manager in step, in the shape of the
    /// WebAuthn L3 signal methods' arguments (`signalAllAcceptedCredentials`,
    /// `signalCurrentUserDetails`; on Apple platforms ASCredentialUpdater takes the same values).
    func signals(_ request: Request) async throws -> Response {
        let caller = try await authentication.require(request)
        guard let account = try await store.account(id: caller.accountId) else { throw APIError.notAuthenticated }
        let credentials = try await store.credentials(accountId: caller.accountId)
        return try JSONResponse.make(.ok, SignalsJSON(rpId: configuration.rpId, account: account, credentials: credentials))
    }

    func rename(_ request: Request, id: String?) async throws -> Response {
        let caller = try await authentication.require(request)
        let credentialId = try Self.credentialId(id)
        let body = try await RequestBody.decode(RenamePasskeyRequest.self, from: request)
        let name = try InputRules.passkeyName(body.name)
        guard let renamed = try await store.renameCredential(id: credentialId, accountId: caller.accountId, name: name) else {
            throw APIError.unknownPasskey
        }
        return try JSONResponse.make(.ok, PasskeyJSON(renamed, providers: providers, androidApps: configuration.androidApps))
    }

    func remove(_ request: Request, id: String?) async throws -> Response {
        let caller = try await authentication.require(request)
        let outcome = try await store.deleteCredential(
            id: try Self.credentialId(id), accountId: caller.accountId, keepingSession: SessionToken.hash(of: caller.token))
        switch outcome {
        case .deleted: return JSONResponse.empty()
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
