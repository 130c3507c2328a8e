import HTTPTypes
import Hummingbird
import LatchkeyAPI

/// The admin API's one gate: every route under `/api/admin` is behind it, so a route added later needs a
/// key too. A request must present a live admin key (`Authorization: Bearer lk_admin_…`; 401
/// `admin_key_invalid` when it is missing, unknown or revoked) whose scope covers the method: reading
/// (GET) needs `read`, which every scope includes; issuing or revoking a recovery grant needs `recovery`;
/// anything else needs `write` (403 `insufficient_scope`). The key is handed to the handler as `AdminCaller.key`, for the audit
/// trail's actor.
struct AdminKeyMiddleware<Context: RequestContext>: RouterMiddleware {
    let admin: AdminService

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let header = request.headers[.authorization], header.utf8.count <= AdminKeySecret.maximumLength + 7,
              header.lowercased().hasPrefix("bearer "),
              let key = try await admin.authenticate(String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces))
        else {
            var refusal = try APIError(.adminKeyInvalid, "Present a live admin key as Authorization: Bearer lk_admin_… (latchkey admin keys create).")
                .response(from: request, context: context)
            refusal.headers[.wwwAuthenticate] = "Bearer realm=\"latchkey-admin\""
            return refusal
        }
        // Reading needs any key; issuing or revoking a recovery grant a recovery key; any other change a write key.
        let reading = request.method == .get || request.method == .head
        let needed: AdminKeyRecord.Scope = reading ? .read : Self.isRecovery(request.uri.path) ? .recovery : .write
        guard key.scope.allows(needed) else {
            throw APIError(.insufficientScope, "This admin key's scope is \(key.scope.rawValue); this operation needs a \(needed.rawValue) key.")
        }
        return try await AdminCaller.$key.withValue(key) {
            try await next(request, context)
        }
    }
}

extension AdminKeyMiddleware {
    /// `/api/admin/recovery/…` and `/api/admin/accounts/{id}/recovery`, by position: an id that happens to
    /// read "recovery" (a client's, `/api/admin/clients/recovery`) is not a recovery route.
    static func isRecovery(_ path: String) -> Bool {
        let parts = path.split(separator: "/")
        guard let admin = parts.firstIndex(of: "admin") else { return false }
        let rest = parts[(admin + 1)...]
        return rest.first == "recovery" || (rest.first == "accounts" && rest.dropFirst(2).first == "recovery")
    }
}

/// The admin key of the request being handled, set by `AdminKeyMiddleware` for the handler's task only.
enum AdminCaller {
    @TaskLocal static var key: AdminKeyRecord?
}
