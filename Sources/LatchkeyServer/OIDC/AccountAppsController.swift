import Foundation
import Hummingbird
import LatchkeyAPI

/// `/api/account/apps`: "Apps with access" — the OpenID Connect clients the signed-in person let in, and
/// taking that back (the consent goes, every grant of the account for the client is revoked, audited
/// `oidc.grant_revoked` with the person as actor).
struct AccountAppsController: Sendable {
    let store: Store
    let accounts: AccountService
    let trustForwardedFor: Bool
    let now: @Sendable () -> Date

    func routes<Context: LatchkeyRequestContext>(signedIn: LatchkeyAuthenticationMiddleware<Context>) -> RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self).add(middleware: signedIn)
        routes.get("account/apps") { _, context in
            let caller = try context.signedInCaller()
            return JSONArrayBody(elements: try await store.oidcApps.apps(accountId: caller.accountId, now: now()).map(AccountAppJSON.init))
        }
        routes.delete("account/apps/:clientId") { request, context in
            let caller = try context.signedInCaller()
            let clientId = try context.parameters.require("clientId")
            let origin = AuditOrigin(request, context: context, actor: "person", trustForwardedFor: trustForwardedFor)
            let revoked = try await accounts.revokeApp(accountId: caller.accountId, clientId: clientId, origin: origin)
            guard revoked else { throw APIError(.unknownApp, "This app has no access to your account.") }
            return NoContent()
        }
        return routes
    }
}

/// One app with access, as the page lists it.
struct AccountAppJSON: NullKeepingBody, Equatable {
    let clientId: String
    let name: String
    let scopes: [String]
    let consentedAt: Date
    let lastUsedAt: Date?
    /// Where its logo is served, relative to the page (`oidc/logo/{clientId}`), or null.
    let logo: String?

    init(_ app: OIDCAppAccess) {
        clientId = app.clientId
        name = app.clientName
        scopes = app.scopes
        consentedAt = app.consentedAt
        lastUsedAt = app.lastUsedAt
        logo = app.hasLogo ? String(OIDCClientLogo.path(clientId: app.clientId).dropFirst()) : nil
    }
}
