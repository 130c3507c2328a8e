import Foundation
import Hummingbird
import LatchkeyAPI
import WebAuthn

/// `/api/admin/…`: the admin API, every route behind `AdminKeyMiddleware`. The same operations as
/// `latchkey admin` (both run `AdminService`).
struct AdminController: Sendable {
    let admin: AdminService
    let trustForwardedFor: Bool
    /// The admin console, whose sessions the gate also admits (nil: keys only).
    var console: ConsoleService? = nil

    func routes<Context: LatchkeyRequestContext>() -> RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self).add(middleware: AdminKeyMiddleware<Context>(admin: admin, console: console))
        routes.get("accounts") { request, _ in try await admin.accounts(try search(request)) }
        routes.get("accounts/:id") { _, context in try await admin.account(id: try context.parameters.require("id")) }
        routes.patch("accounts/:id") { request, context in
            let body = try await RequestBody.decode(AccountProfileRequest.self, from: request)
            return try await admin.setProfile(accountId: try context.parameters.require("id"), body, origin: origin(request, context))
        }
        routes.post("accounts/:id/disable") { request, context in
            try await admin.disable(accountId: try context.parameters.require("id"), origin: origin(request, context))
        }
        routes.post("accounts/:id/enable") { request, context in
            try await admin.enable(accountId: try context.parameters.require("id"), origin: origin(request, context))
        }
        routes.delete("accounts/:id") { request, context in
            try await admin.delete(accountId: try context.parameters.require("id"), origin: origin(request, context))
            return NoContent()
        }
        routes.delete("accounts/:id/sessions") { request, context in
            SessionsEnded(ended: try await admin.revokeSessions(accountId: try context.parameters.require("id"), origin: origin(request, context)))
        }
        routes.delete("passkeys/:id") { request, context in
            guard let id = Base64URL.decode(try context.parameters.require("id")), !id.isEmpty else {
                throw APIError(.invalidPasskeyId, "The passkey id in the path must be base64url.")
            }
            let query = APIQuery(request.uri)
            try await admin.removePasskey(id: id, allowLast: try query.flag("allowLast"), origin: origin(request, context))
            return NoContent()
        }
        routes.post("accounts/:id/recovery") { request, context in
            let body = try await RequestBody.read(request).map { try RequestBody.decode(RecoveryIssueRequest.self, from: $0) }
            // The whole number is checked before it becomes a time: Int.max as a Double is 2^63, which no
            // Int holds, and one conversion of it back killed the server (review 4, S4-2).
            let seconds = body?.ttlSeconds ?? RecoveryService.defaultLifetimeSeconds
            guard RecoveryService.lifetimeSeconds.contains(seconds) else { throw RecoveryService.lifetimeRefusal }
            let issued = try await admin.recovery.issue(
                accountId: try context.parameters.require("id"), lifetime: TimeInterval(seconds), origin: origin(request, context))
            return APIReply(status: .created, body: issued)
        }
        routes.get("recovery") { request, _ in
            JSONArrayBody(elements: try await admin.recovery.grants(accountId: try APIQuery(request.uri).text("account")))
        }
        routes.delete("recovery/:id") { request, context in
            try await admin.recovery.revoke(grantId: try context.parameters.require("id"), origin: origin(request, context))
            return NoContent()
        }
        routes.get("clients") { _, _ in JSONArrayBody(elements: try await admin.clients()) }
        routes.post("clients") { request, context in
            let body = try await RequestBody.decode(OIDCClientRequest.self, from: request)
            return APIReply(status: .created, body: try await admin.createClient(body, origin: origin(request, context)))
        }
        routes.get("clients/:clientId") { _, context in try await admin.client(id: try context.parameters.require("clientId")) }
        routes.patch("clients/:clientId") { request, context in
            let body = try await RequestBody.decode(OIDCClientRequest.self, from: request)
            return try await admin.updateClient(id: try context.parameters.require("clientId"), body, origin: origin(request, context))
        }
        routes.delete("clients/:clientId") { request, context in
            try await admin.removeClient(id: try context.parameters.require("clientId"), origin: origin(request, context))
            return NoContent()
        }
        routes.post("clients/:clientId/secret") { request, context in
            try await admin.rotateClientSecret(id: try context.parameters.require("clientId"), origin: origin(request, context))
        }
        for holder in ["accounts/:id", "groups/:id"] {
            let ofAccount = holder.hasPrefix("accounts")
            @Sendable func who(_ context: Context) throws -> OIDCClaimStore.ClaimHolder {
                let id = try context.parameters.require("id")
                return ofAccount ? .account(id) : .group(id)
            }
            routes.get(RouterPath(holder + "/claims")) { _, context in JSONArrayBody(elements: try await admin.claims(of: try who(context))) }
            routes.put(RouterPath(holder + "/claims/:name")) { request, context in
                let body = try await RequestBody.decode(OIDCClaimRequest.self, from: request)
                return try await admin.setClaim(
                    named: try context.parameters.require("name"), body, of: try who(context), origin: origin(request, context))
            }
            routes.delete(RouterPath(holder + "/claims/:name")) { request, context in
                try await admin.removeClaim(named: try context.parameters.require("name"), of: try who(context), origin: origin(request, context))
                return NoContent()
            }
        }
        routes.get("admins") { _, _ in JSONArrayBody(elements: try await admin.admins()) }
        routes.put("accounts/:id/admin") { request, context in
            let body = try await RequestBody.decode(AdminRoleRequest.self, from: request)
            return try await admin.grantAdmin(
                accountId: try context.parameters.require("id"), scopes: try AdminService.scopes(body.scopes),
                caller: AdminCaller.current?.scopes, origin: origin(request, context))
        }
        routes.delete("accounts/:id/admin") { request, context in
            try await admin.revokeAdmin(accountId: try context.parameters.require("id"), origin: origin(request, context))
            return NoContent()
        }
        routes.get("audit") { request, _ in try await admin.events(try auditQuery(request)) }
        routes.get("keys") { _, _ in JSONArrayBody(elements: try await admin.keys()) }
        routes.post("keys") { request, context in
            let body = try await RequestBody.decode(AdminKeyRequest.self, from: request)
            guard let scope = AdminKeyRecord.Scope(rawValue: body.scope) else {
                throw APIError(.invalidField, "scope must be read, write or recovery.")
            }
            // A key makes keys of its own scope or less: a write key cannot mint a recovery key.
            guard let caller = AdminCaller.current, caller.scopes.allows(scope) else {
                throw APIError(.insufficientScope, "A caller of scope \(AdminCaller.current?.scopes.text ?? "") cannot create a \(scope.rawValue) key; use latchkey admin keys create.")
            }
            return APIReply(status: .created, body: try await admin.createKey(scope: scope, name: body.name, origin: origin(request, context)))
        }
        routes.delete("keys/:id") { request, context in
            try await admin.revokeKey(id: try context.parameters.require("id"), origin: origin(request, context))
            return NoContent()
        }
        return routes
    }

    /// The caller's origin: `admin:<key id>` or `admin:account:<id>`, from where the request came.
    private func origin(_ request: Request, _ context: some RequestContext) -> AuditOrigin {
        AuditOrigin(request, context: context, actor: AdminCaller.current?.actor ?? "admin:?", trustForwardedFor: trustForwardedFor)
    }

    private func search(_ request: Request) throws -> AdminAccountStore.AccountSearch {
        let query = APIQuery(request.uri)
        var search = AdminAccountStore.AccountSearch()
        search.text = try query.text("q") ?? ""
        if let provider = try query.text("provider") {
            let aaguids = admin.aaguids(provider: provider)
            guard let first = aaguids.first else {
                throw APIError(.invalidParameter, "provider must be an AAGUID or a provider's name from the bundled list.")
            }
            // A name several AAGUIDs share: the search takes the first (the list's providers have one each, mostly).
            search.aaguid = first
        }
        search.lastLoginFrom = try query.time("lastLoginFrom")
        search.lastLoginBefore = try query.time("lastLoginBefore")
        search.after = try query.text("cursor") ?? ""
        search.limit = try query.limit()
        return search
    }

    private func auditQuery(_ request: Request) throws -> Store.AuditQuery {
        let query = APIQuery(request.uri)
        var audit = Store.AuditQuery()
        audit.accountId = try query.text("account")
        if let name = try query.text("event") {
            guard let kind = AuditEvent.Kind(rawValue: name) else {
                throw APIError(.invalidParameter, "event must be one of: \(AuditEvent.Kind.allCases.map(\.rawValue).joined(separator: ", ")).")
            }
            audit.kind = kind
        }
        audit.since = try query.time("since")
        audit.before = try query.cursor()
        audit.limit = try query.limit()
        return audit
    }
}

/// `DELETE /api/admin/accounts/{id}/sessions`: how many sessions ended.
struct SessionsEnded: APIResponseBody {
    let ended: Int
}
