import Foundation
import LatchkeyAPI

/// Who is an administrator: the admin role on an account, granted and taken away by an administrator
/// (the admin API, the console) or by `latchkey admin accounts grant-admin` / `revoke-admin`, audited.
extension AdminService {
    /// `read`, `write`, `recovery` (write and recovery may go together), as typed or sent.
    static func scopes(_ names: [String]) throws -> AdminScopes {
        guard !names.isEmpty, let scopes = AdminScopes(text: names.joined(separator: ",")) else {
            throw APIError(.invalidField, "scopes must name read, write or recovery (write and recovery may go together).")
        }
        return scopes
    }

    /// Makes the account an administrator with `scopes` (replacing its scopes when it is one). A caller
    /// through the API grants only scopes it holds itself (`caller`; nil for the CLI).
    func grantAdmin(accountId: String, scopes: AdminScopes, caller: AdminScopes?, origin: AuditOrigin) async throws -> AdminRoleJSON {
        if let caller, !caller.covers(scopes) {
            throw APIError(.insufficientScope, "A caller of scope \(caller.text) cannot grant \(scopes.text); use latchkey admin accounts grant-admin.")
        }
        let role = AdminRole(accountId: accountId, scopes: scopes, grantedAt: now(), grantedBy: origin.actor)
        let event = origin.event(.adminGranted, at: role.grantedAt, account: accountId, detail: ["scopes": .text(scopes.text)])
        guard try await store.adminRoles.grant(role, event: event) else { throw APIError.unknownAccount }
        return AdminRoleJSON(role)
    }

    /// Takes the role away; its console sessions end at once.
    func revokeAdmin(accountId: String, origin: AuditOrigin) async throws {
        guard try await store.adminRoles.revoke(accountId: accountId, event: origin.event(.adminRevoked, at: now(), account: accountId)) else {
            throw APIError(.unknownAccount, "This account is not an administrator.")
        }
    }

    func admins() async throws -> [AdminRoleJSON] {
        try await store.adminRoles.all().map(AdminRoleJSON.init)
    }
}
