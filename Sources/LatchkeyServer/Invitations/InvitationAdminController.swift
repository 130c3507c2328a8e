import Hummingbird
import LatchkeyAPI

/// The operator's side, under `/api/admin` behind `AdminKeyMiddleware` like every admin route (a write key
/// for the changes): `GET`/`POST /api/admin/invites`, `DELETE /api/admin/invites/{id}`, and `POST
/// /api/admin/accounts` (an account with an invitation for its first passkey). The same operations as
/// `latchkey admin invites …` and `accounts create` (both run `InvitationService`).
struct InvitationAdminController: Sendable {
    let admin: AdminService
    let invitations: InvitationService
    let trustForwardedFor: Bool
    /// The admin console, whose sessions the gate also admits (nil: keys only).
    var console: ConsoleService? = nil

    func routes<Context: LatchkeyRequestContext>() -> RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self).add(middleware: AdminKeyMiddleware<Context>(admin: admin, console: console))
        routes.get("invites") { _, _ in JSONArrayBody(elements: try await invitations.invitations()) }
        routes.post("invites") { request, context in
            // No body: an invitation for one new person, for the default time.
            let body = try await RequestBody.read(request).map { try RequestBody.decode(InvitationCreateRequest.self, from: $0) }
            return APIReply(status: .created, body: try await invitations.create(body ?? InvitationCreateRequest(), origin: origin(request, context)))
        }
        routes.delete("invites/:id") { request, context in
            try await invitations.revoke(id: try context.parameters.require("id"), origin: origin(request, context))
            return NoContent()
        }
        routes.post("accounts") { request, context in
            let body = try await RequestBody.decode(AccountCreateRequest.self, from: request)
            let created = try await invitations.createAccount(body, origin: origin(request, context))
            return APIReply(status: .created, body: AccountCreatedJSON(
                account: try await admin.account(id: created.accountId), invitation: created.issued.invitation, code: created.issued.code,
                link: created.issued.link, mailed: created.issued.mailed))
        }
        return routes
    }

    /// The admin key's origin: `admin:<key id>`, from where the request came.
    private func origin(_ request: Request, _ context: some RequestContext) -> AuditOrigin {
        AuditOrigin(request, context: context, actor: AdminCaller.current?.actor ?? "admin:?", trustForwardedFor: trustForwardedFor)
    }
}
