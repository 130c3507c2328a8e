import Foundation
import LatchkeyAPI
import WebAuthn

/// Getting an account by invitation (issue 43). An operator makes an invitation (`create`) — for a new
/// person, or with the account it is for (`createAccount`) — whose link `ORIGIN/invite#CODE` they hand
/// over or have mailed. Its holder sees who it is for (`preview`), then uses it (`exchange`): each use makes
/// an account with the invitation's username, email and groups (or takes the operator's account) and opens
/// a restricted session on it that can do one thing — add the account's first passkey. That is the recovery
/// machinery: the code is a `RecoveryCode` (only its secret's SHA-256 stored, compared in constant time,
/// `RecoveryService.attemptLimit` wrong tries revoke it), the session a recovery session (`RecoveryGate`
/// holds it to the registration routes), and the passkey's ceremony uses the use up (`RecoveryUse`).
/// Every refusal of a code is `refused`, whatever the reason.
struct InvitationService: Sendable {
    let store: Store
    let configuration: ServerConfiguration
    /// Sends a link when asked (`send`); nil without `--smtp-url`.
    let mail: MailSender?
    /// Where a link someone asked for by mail is sent from, off the request (`--signup-domain`); nil in
    /// `latchkey admin`, which sends in line.
    var outbox: MailOutbox? = nil
    let now: @Sendable () -> Date

    static let lifetimeSeconds: ClosedRange<Int> = 300...(90 * 86_400)
    static let defaultLifetimeSeconds = 7 * 86_400
    static let usesAllowed: ClosedRange<Int> = 1...1000

    /// The one answer to every code that cannot be used: it says nothing about why.
    static let refused = APIError(
        .invalidInvitation, "This invitation cannot be used: it may be mistyped, expired, used up or revoked. Ask for a new one.")
    /// An invitation for a new person while no new accounts are taken (`--signup closed`).
    static let closed = APIError(
        .signupClosed, "This server takes no new accounts (--signup closed): an operator makes them, with an invitation for the first passkey (latchkey admin accounts create).")

    // MARK: The operator

    /// An invitation's settings, each checked by its rule.
    struct Draft: Sendable {
        var username: String?
        var email: String?
        var groups: [String] = []
        var lifetime: TimeInterval
        var uses: Int
        var send: Bool
        /// The person's language, when the operator knows it: the mail's, and the account's when one is made.
        var language: String?
    }

    func draft(_ request: InvitationCreateRequest) async throws -> Draft {
        // The whole number is checked before it becomes a time (review 4, S4-2: a conversion of 2^63 trapped).
        let seconds = request.ttlSeconds ?? Self.defaultLifetimeSeconds
        guard Self.lifetimeSeconds.contains(seconds) else {
            throw APIError(.invalidField, "ttlSeconds: an invitation lives from 5 minutes to 90 days (a whole number from 300 to 7776000 seconds).")
        }
        let uses = request.uses ?? 1
        guard Self.usesAllowed.contains(uses) else { throw APIError(.invalidField, "uses: an invitation makes from 1 to 1000 accounts.") }
        let send = request.send ?? false
        var draft = Draft(lifetime: TimeInterval(seconds), uses: uses, send: send)
        draft.username = try request.username.map { name throws(APIError) in try InputRules.username(name) }
        // An address Latchkey can write to, when it is to be mailed; any the profile's rule takes otherwise.
        if let address = request.email {
            draft.email = try send ? EmailService.address(address).value : InputRules.email(address)
        }
        if let groups = request.groups {
            guard groups.count <= OIDCClientRules.groupCount else {
                throw APIError(.groupNameInvalid, "An account is in at most \(OIDCClientRules.groupCount) groups (groups).")
            }
            draft.groups = try InputRules.groupNames(groups, field: "A group (groups, --group)")
        }
        guard uses == 1 || (draft.username == nil && draft.email == nil) else {
            throw APIError(.invalidField, "uses: an invitation for several people gives no username or email (each account would need its own).")
        }
        if let language = request.language {
            guard let code = Self.shippedLanguage(language) else {
                throw APIError(.invalidField, "language must be one of the shipped languages: \(Catalogues.shipped?.codes.joined(separator: ", ") ?? "en").")
            }
            draft.language = code
        }
        if draft.send {
            guard draft.email != nil else { throw APIError(.invalidField, "send: the invitation has no email to be mailed to.") }
            guard mail != nil else { throw APIError.mailOff }
        }
        if let username = draft.username, try await store.invitations.isTaken(username: username, now: now()) {
            throw APIError(.usernameTaken, "The username \(username) is another account's, or a live invitation's; choose another.")
        }
        return draft
    }

    /// A new invitation for a new person (`latchkey admin invites create`, `POST /api/admin/invites`).
    func create(_ request: InvitationCreateRequest, origin: AuditOrigin) async throws -> InvitationIssuedJSON {
        guard configuration.effectiveSignUp.admitsInvitations else { throw Self.closed }
        let draft = try await self.draft(request)
        let at = now()
        for _ in 0..<5 {
            let (code, invitation) = record(draft, accountId: nil, at: at, origin: origin)
            if try await store.invitations.insert(invitation, events: [created(invitation, origin: origin)]) {
                return try await issued(invitation, code: code, send: draft.send, language: draft.language)
            }
            // An id drawn twice (one in 33 million): draw again.
        }
        throw APIError.internalError
    }

    /// The stored invitation for `draft` and its code.
    func record(_ draft: Draft, accountId: String?, at: Date, origin: AuditOrigin) -> (RecoveryCode, InvitationRecord) {
        let code = RecoveryCode.generate()
        return (code, InvitationRecord(
            id: code.id, secretHash: code.secretHash, accountId: accountId, username: draft.username, email: draft.email, groups: draft.groups,
            maxUses: draft.uses, createdAt: at, expiresAt: at + draft.lifetime, createdBy: origin.actor))
    }

    /// `invite.created`, on the account when it is for one: never the code, the address or the groups.
    func created(_ invitation: InvitationRecord, origin: AuditOrigin) -> AuditEvent {
        origin.event(.inviteCreated, at: invitation.createdAt, account: invitation.accountId, detail: [
            "invitationId": .text(invitation.id), "uses": .number(invitation.maxUses),
            "expiresIn": .number(Int(invitation.expiresAt.timeIntervalSince(invitation.createdAt))),
        ])
    }

    /// A shipped language's code for `text` (any case), or nil.
    static func shippedLanguage(_ text: String) -> String? {
        guard text.count <= AcceptLanguage.maximumRangeLength else { return nil }
        return Catalogues.shipped?.codes.first { $0.lowercased() == text.lowercased() }
    }

    /// The answer to a new invitation, once mailed when `send` asks (the answer says whether the server took
    /// it) in `language`, else `--default-language`: there is no account whose language it could be.
    func issued(_ invitation: InvitationRecord, code: RecoveryCode, send: Bool, language: String?) async throws -> InvitationIssuedJSON {
        let link = link(for: code)
        var invitation = invitation
        if send, let mail, let email = invitation.email, case .success(let address) = EmailAddress.parse(email) {
            let texts = MailTexts.invitation(
                service: configuration.brandName ?? configuration.rpName, name: invitation.username, link: link, expiresAt: invitation.expiresAt,
                language: language ?? configuration.defaultLanguage)
            if await mail.send(to: address, subject: texts.subject, text: texts.text, purpose: "invitation") {
                invitation.mailedAt = now()
                try await store.invitations.markMailed(id: invitation.id, at: invitation.mailedAt ?? invitation.createdAt)
            }
        }
        return InvitationIssuedJSON(
            invitation: InvitationJSON(invitation, now: now()), code: code.text, link: link, mailed: invitation.mailedAt != nil)
    }

    /// `ORIGIN/invite#CODE`: the fragment never reaches a server's logs.
    func link(for code: RecoveryCode) -> String {
        "\(configuration.origins.first ?? "")/invite#\(code.text)"
    }

    /// The newest invitations, newest first (never their codes).
    func invitations(limit: Int = 100) async throws -> [InvitationJSON] {
        let at = now()
        return try await store.invitations.recent(limit: limit).map { InvitationJSON($0, now: at) }
    }

    /// Revokes a live invitation; the restricted sessions its uses opened and did not finish end with it.
    func revoke(id: String, origin: AuditOrigin) async throws {
        let at = now()
        guard try await store.invitations.revoke(id: id, at: at, event: { account in
            origin.event(.inviteRevoked, at: at, account: account, detail: ["invitationId": .text(id)])
        }) else { throw APIError(.unknownInvitation, "There is no live invitation with this id (revoked, used up and expired ones stay as they are).") }
    }

    // MARK: The person

    /// The live invitation a code opens, or `refused`; a wrong secret for a live invitation is counted against
    /// it. An invitation for a new person under `--signup closed` is refused as such.
    func outstanding(code text: String) async throws -> InvitationRecord {
        guard let code = RecoveryCode.parse(text), let invitation = try await store.invitations.invitation(id: code.id) else { throw Self.refused }
        let at = now()
        guard ConstantTime.equal(code.secretHash, invitation.secretHash) else {
            if invitation.isOutstanding(at: at) { try await store.invitations.fail(id: invitation.id, at: at, limit: RecoveryService.attemptLimit) }
            throw Self.refused
        }
        guard invitation.isOutstanding(at: at) else { throw Self.refused }
        guard invitation.accountId != nil || configuration.effectiveSignUp.admitsInvitations else { throw Self.closed }
        return invitation
    }

    /// Who the invitation is for and from which service; nothing is used up.
    func preview(code: String) async throws -> InvitationPreviewJSON {
        let invitation = try await outstanding(code: code)
        var displayName: String?
        if let account = invitation.accountId {
            guard let found = try await store.account(id: account) else { throw Self.refused }
            displayName = found.displayName
        }
        return InvitationPreviewJSON(
            service: configuration.rpName, origin: configuration.origins.first ?? "", newAccount: invitation.accountId == nil,
            displayName: displayName, username: invitation.username, email: invitation.email, groups: invitation.groups,
            expiresAt: invitation.expiresAt)
    }

    /// One use: the account (made now, or the operator's) and its restricted session, which can add the
    /// account's first passkey and nothing else. `displayName` names a new account (its username when absent).
    func exchange(code: String, displayName: String?, origin: AuditOrigin) async throws -> RecoveryExchangeJSON {
        let invitation = try await outstanding(code: code)
        let at = now()
        var newAccount: AccountRecord?
        if invitation.accountId == nil {
            guard let name = try displayName.map({ name throws(APIError) in try InputRules.displayName(name) }) ?? invitation.username else {
                throw APIError(.missingField, "The field displayName is missing: the name the new account greets you by.")
            }
            newAccount = AccountRecord(
                id: UUID().uuidString.lowercased(), userHandle: RandomBytes.make(64), displayName: name, credo: "", createdAt: at, updatedAt: at)
        }
        let token = SessionToken.generateRecovery()
        let use = InvitationStore.Use(
            id: UUID().uuidString.lowercased(), at: at, newAccount: newAccount, sessionTokenHash: token.hash,
            sessionLifetime: RecoveryService.sessionLifetime)
        let person = origin.acting(as: "invitation")
        do {
            guard let used = try await store.invitations.use(id: invitation.id, use, events: { invitation, account in
                let used = person.event(.inviteUsed, at: at, account: account.id, detail: [
                    "invitationId": .text(invitation.id), "use": .number(invitation.uses), "of": .number(invitation.maxUses),
                ])
                guard invitation.accountId == nil else { return [used] }
                return [person.event(.accountCreated, at: at, account: account.id, detail: ["displayName": .text(account.displayName)]), used]
            }) else { throw Self.refused }
            return RecoveryExchangeJSON(
                token: token.value, expiresAt: used.sessionExpiresAt,
                account: RecoveryAccountJSON(id: used.account.id, displayName: used.account.displayName))
        } catch is InvitationStore.AccountUnusable {
            throw Self.refused
        } catch Store.Failure.duplicate {
            throw APIError(.usernameTaken, "The username this invitation gives is another account's by now: ask for a new invitation.")
        }
    }
}
