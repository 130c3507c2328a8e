import Hummingbird
import LatchkeyAPI

/// `POST /api/recovery/exchange`: a recovery code for a restricted session (`RecoveryService`). In the
/// rate-limited `/api` group; each grant also counts its wrong codes.
struct RecoveryController: Sendable {
    let recovery: RecoveryService
    let trustForwardedFor: Bool

    func routes<Context: LatchkeyRequestContext>() -> RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self)
        routes.post("recovery/exchange") { request, context in
            let body = try await RequestBody.decode(RecoveryExchangeRequest.self, from: request)
            let origin = AuditOrigin(request, context: context, actor: "anonymous", trustForwardedFor: trustForwardedFor)
            return APIReply(status: .created, body: try await recovery.exchange(code: body.code, origin: origin))
        }
        return routes
    }
}
