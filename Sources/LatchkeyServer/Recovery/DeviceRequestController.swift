import Hummingbird
import LatchkeyAPI

/// Letting a new device in (`DeviceApprovalService`): the new device's two routes, anonymous and
/// rate-limited (`POST /api/device-requests`, `…/{id}/poll`), and the signed-in person's four, behind the
/// authentication middleware (`…/account/device-requests/find`, `…/account/confirm/options`,
/// `…/{id}/approve`, `…/{id}/deny`).
struct DeviceRequestController: Sendable {
    let approvals: DeviceApprovalService
    let trustForwardedFor: Bool

    func routes<Context: LatchkeyRequestContext>(signedIn: LatchkeyAuthenticationMiddleware<Context>) -> RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        routes.post("device-requests") { request, context in
            let body = try await RequestBody.read(request).map { try RequestBody.decode(DeviceRequestCreateRequest.self, from: $0) }
            return APIReply(
                status: .created, body: try await approvals.request(username: body?.username, origin: origin(request, context, actor: "anonymous")))
        }
        routes.post("device-requests/:id/poll") { request, context in
            let body = try await RequestBody.decode(DevicePollRequest.self, from: request)
            return try await approvals.poll(id: try context.parameters.require("id"), secret: body.secret)
        }
        let person = RouteCollection(context: Context.self).add(middleware: signedIn)
        person.post("account/device-requests/find") { request, context in
            try await approvals.find(
                code: try await RequestBody.decode(DeviceFindRequest.self, from: request).code, caller: try context.signedInCaller().account)
        }
        person.post("account/confirm/options") { _, context in
            OptionsResponse(publicKey: try await approvals.confirmationOptions(account: try context.signedInCaller().account))
        }
        person.post("account/device-requests/:id/approve") { request, context in
            let body = try await RequestBody.decode(LoginVerifyRequest.self, from: request)
            try await approvals.approve(
                id: try context.parameters.require("id"), credential: body.credential, caller: try context.signedInCaller().account,
                origin: origin(request, context, actor: "person"))
            return NoContent()
        }
        person.post("account/device-requests/:id/deny") { request, context in
            try await approvals.deny(
                id: try context.parameters.require("id"), caller: try context.signedInCaller().account, origin: origin(request, context, actor: "person"))
            return NoContent()
        }
        routes.addRoutes(person)
        return routes
    }

    private func origin(_ request: Request, _ context: some RequestContext, actor: String) -> AuditOrigin {
        AuditOrigin(request, context: context, actor: actor, trustForwardedFor: trustForwardedFor)
    }
}
