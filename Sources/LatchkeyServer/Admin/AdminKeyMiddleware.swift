import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI

/// The admin API's one gate: every route under `/api/admin` is behind it, so a route added later needs a
/// caller too. A request presents either a live admin key (`Authorization: Bearer lk_admin_…`) or the
/// admin console's session cookie (`ConsoleCookie`) of an enabled account that holds the admin role; 401
/// `admin_key_invalid` when it presents neither, or one that is unknown, revoked or expired. The caller's
/// scope must cover the method: reading (GET) needs `read`, which every scope includes; issuing or
/// revoking a recovery grant needs `recovery`; anything else needs `write` (403 `insufficient_scope`).
/// A change made with the console's cookie must also come from an allowed origin (403
/// `origin_not_allowed` / `origin_required`) and follow a user-verified passkey assertion of the last
/// few minutes (403 `step_up_required`): the cookie alone changes nothing. The caller is handed to the
/// handler as `AdminCaller.current`, for the audit trail's actor.
struct AdminKeyMiddleware<Context: RequestContext>: RouterMiddleware {
    let admin: AdminService
    /// The console's sessions; nil where there is no console (`latchkey admin`'s service has no routes).
    var console: ConsoleService? = nil

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let caller: AdminCaller
        if request.headers[.authorization] == nil, let console, console.token(of: request) != nil {
            guard let found = try await console.caller(of: request) else {
                return try Self.refusal(
                    "The console session ended (or its account is no longer an administrator): sign in again at /admin.", request, context)
            }
            caller = found
        } else {
            guard let header = request.headers[.authorization], header.utf8.count <= AdminKeySecret.maximumLength + 7,
                  header.lowercased().hasPrefix("bearer "),
                  let key = try await admin.authenticate(String(header.dropFirst(7)).trimmingCharacters(in: .whitespaces))
            else {
                return try Self.refusal(
                    "Present a live admin key as Authorization: Bearer lk_admin_… (latchkey admin keys create), or sign in to the console at /admin.",
                    request, context)
            }
            caller = AdminCaller(actor: "admin:\(key.id)", scopes: AdminScopes([key.scope]), keyId: key.id)
        }
        // Reading needs any scope; issuing or revoking a recovery grant the recovery scope; any other change write.
        let needed: AdminKeyRecord.Scope = Self.isReading(request) ? .read : Self.isRecovery(request.uri.path) ? .recovery : .write
        guard caller.scopes.allows(needed) else {
            throw APIError(.insufficientScope, "This caller's scope is \(caller.scopes.text); this operation needs \(needed.rawValue).")
        }
        return try await AdminCaller.$current.withValue(caller) {
            try await next(request, context)
        }
    }

    /// 401 `admin_key_invalid` with the Bearer challenge, whichever credential was missing or dead.
    static func refusal(_ message: String, _ request: Request, _ context: Context) throws -> Response {
        var refusal = try APIError(.adminKeyInvalid, message).response(from: request, context: context)
        refusal.headers[.wwwAuthenticate] = "Bearer realm=\"latchkey-admin\""
        return refusal
    }

    static func isReading(_ request: Request) -> Bool {
        request.method == .get || request.method == .head
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

/// Who is calling the admin API, set by `AdminKeyMiddleware` for the handler's task only: an admin key,
/// or an administrator's account through the console.
struct AdminCaller: Sendable {
    /// The audit trail's actor: `admin:<key id>`, or `admin:account:<account id>` (the person affected
    /// sees either as "an administrator").
    let actor: String
    let scopes: AdminScopes
    /// The key's id, for a key.
    var keyId: String? = nil
    /// The administrator's account, through the console.
    var accountId: String? = nil

    @TaskLocal static var current: AdminCaller?
}
