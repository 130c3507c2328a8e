import Foundation
import LatchkeyAPI

/// What apps may learn about a person, as an operator sets it (`latchkey admin accounts set`,
/// `PATCH /api/admin/accounts/{id}`): username, email and its verification, groups. One request is one
/// transaction with one `account.updated` event whose detail names the fields changed — never their
/// values (an address is the person's, not the trail's, and the trail goes out to webhooks).
extension AdminService {
    func setProfile(accountId: String, _ request: AccountProfileRequest, origin: AuditOrigin) async throws -> AdminAccountDetailJSON {
        guard !request.isEmpty else {
            throw APIError(.invalidField, "Send username, email, emailVerified or groups (null removes a username or an email).")
        }
        guard let profile = try await store.accountProfile(id: accountId) else { throw APIError.unknownAccount }
        let changes = try Self.profileChanges(request, current: profile)
        let event = origin.event(.accountUpdated, at: now(), account: accountId, detail: ["fields": .text(Self.fieldNames(request))])
        do {
            guard try await store.changeProfile(accountId: accountId, changes, at: event.at, event: event) else { throw APIError.unknownAccount }
        } catch Store.Failure.duplicate {
            throw APIError.usernameTaken
        }
        return try await account(id: accountId)
    }

    /// The store's changes for a request, each field checked by its rule.
    static func profileChanges(_ request: AccountProfileRequest, current: AccountProfile) throws(APIError) -> [Store.ProfileChange] {
        var changes: [Store.ProfileChange] = []
        switch request.username {
        case .keep: break
        case .remove: changes.append(.username(nil))
        case .set(let name): changes.append(.username(try InputRules.username(name)))
        }
        switch request.email {
        case .keep:
            if let verified = request.emailVerified {
                guard current.email != nil || !verified else {
                    throw APIError(.emailInvalid, "The account has no email to mark verified (emailVerified); send email too.")
                }
                changes.append(.emailVerified(verified))
            }
        case .remove:
            guard request.emailVerified != true else {
                throw APIError(.emailInvalid, "An email that is removed cannot be verified (emailVerified).")
            }
            changes.append(.email(nil, verified: false))
        case .set(let address):
            changes.append(.email(try InputRules.email(address), verified: request.emailVerified))
        }
        switch request.groups {
        case .keep: break
        case .remove: changes.append(.groups([]))
        case .set(let groups):
            guard groups.count <= OIDCClientRules.groupCount else {
                throw APIError(.groupNameInvalid, "An account is in at most \(OIDCClientRules.groupCount) groups (groups).")
            }
            changes.append(.groups(try InputRules.groupNames(groups, field: "A group (groups, --group)")))
        }
        return changes
    }

    /// The names of the fields a request changes, for the audit detail.
    static func fieldNames(_ request: AccountProfileRequest) -> String {
        [
            request.username.isKept ? nil : "username", request.email.isKept ? nil : "email",
            request.emailVerified == nil && !(request.email == .remove) ? nil : "emailVerified", request.groups.isKept ? nil : "groups",
        ].compactMap { $0 }.joined(separator: ",")
    }
}
