import Foundation
import LatchkeyAPI

/// Operators make accounts (`latchkey admin accounts create`, `POST /api/admin/accounts`): an account with
/// its profile and no passkey, and an invitation for it whose one use adds its first passkey — how an
/// operator on-boards a colleague, or moves a team over before anyone has a passkey. Under every sign-up
/// policy, `closed` included.
extension InvitationService {
    /// The account made, and its invitation as `create` answers one.
    struct CreatedAccount: Sendable {
        let accountId: String
        let issued: InvitationIssuedJSON
    }

    func createAccount(_ request: AccountCreateRequest, origin: AuditOrigin) async throws -> CreatedAccount {
        guard request.invitation.username != nil else {
            throw APIError(.missingField, "The field username is missing: an operator's account has one (--username).")
        }
        guard (request.invitation.uses ?? 1) == 1 else {
            throw APIError(.invalidField, "uses: the invitation of an operator's account is used once, by its person.")
        }
        var draft = try await self.draft(request.invitation)
        guard let username = draft.username else { throw APIError.internalError }
        let displayName = try request.displayName.map { name throws(APIError) in try InputRules.displayName(name) } ?? username
        let at = now()
        let account = AccountRecord(
            id: UUID().uuidString.lowercased(), userHandle: RandomBytes.make(64), displayName: displayName, credo: "", createdAt: at, updatedAt: at)
        draft.uses = 1
        // The address is the operator's word, not verified: using the link mailed to it verifies it.
        var profile: [Store.ProfileChange] = [.username(username)]
        if let email = draft.email { profile.append(.email(email, verified: false)) }
        if !draft.groups.isEmpty { profile.append(.groups(draft.groups)) }
        for _ in 0..<5 {
            let (code, invitation) = record(draft, accountId: account.id, at: at, origin: origin)
            let made = origin.event(.accountCreatedByOperator, at: at, account: account.id, detail: ["displayName": .text(displayName)])
            do {
                try await store.invitations.createAccount(account, profile: profile, invitation: invitation, events: [made, created(invitation, origin: origin)])
            } catch is InvitationStore.IdTaken {
                continue  // an id drawn twice (one in 33 million): draw again
            } catch Store.Failure.duplicate {
                throw APIError.usernameTaken
            }
            // The operator's word for the person's language: the account's mails are in it until the page
            // says otherwise (PUT /api/account/language).
            if let language = draft.language { _ = try await store.setLanguage(language, accountId: account.id) }
            return CreatedAccount(accountId: account.id, issued: try await issued(invitation, code: code, send: draft.send, language: draft.language))
        }
        throw APIError.internalError
    }
}
