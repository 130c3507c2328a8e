import Hummingbird
import LatchkeyAPI

/// Email for recovery (`EmailService`): the signed-in person's address (`GET|PUT|DELETE
/// /api/account/email`) and its confirmation (`POST /api/account/email/verify`), behind the authentication
/// middleware (a recovery session is refused there); and the anonymous request for a recovery link
/// (`POST /api/recovery/email`, 202 whatever the address) with whether it is offered (`GET`). All in the
/// rate-limited `/api` group.
struct EmailController: Sendable {
    let email: EmailService
    let trustForwardedFor: Bool

    func routes<Context: LatchkeyRequestContext>(signedIn: LatchkeyAuthenticationMiddleware<Context>) -> RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        routes.get("recovery/email") { _, _ in RecoveryEmailAvailabilityJSON(enabled: email.recoveryByEmail) }
        routes.post("recovery/email") { request, context in
            let body = try await RequestBody.decode(EmailAddressRequest.self, from: request)
            try email.requestRecovery(email: body.email, origin: origin(request, context, actor: "anonymous"))
            return APIReply(status: .accepted, body: RecoveryEmailJSON())
        }
        let person = RouteCollection(context: Context.self).add(middleware: signedIn)
        person.get("account/email") { _, context in try await email.status(accountId: context.signedInCaller().accountId) }
        person.put("account/email") { request, context in
            let body = try await RequestBody.decode(EmailAddressRequest.self, from: request)
            return try await email.change(email: body.email, caller: context.signedInCaller(), origin: origin(request, context, actor: "person"))
        }
        person.delete("account/email") { request, context in
            try await email.remove(caller: context.signedInCaller().account, origin: origin(request, context, actor: "person"))
            return NoContent()
        }
        person.post("account/email/verify") { request, context in
            let body = try await RequestBody.decode(EmailVerifyRequest.self, from: request)
            return try await email.verify(token: body.token, caller: context.signedInCaller(), origin: origin(request, context, actor: "person"))
        }
        routes.addRoutes(person)
        return routes
    }

    private func origin(_ request: Request, _ context: some RequestContext, actor: String) -> AuditOrigin {
        AuditOrigin(request, context: context, actor: actor, trustForwardedFor: trustForwardedFor)
    }
}
