import Foundation
import LatchkeyAPI
import LatchkeyTransport

/// Closed to strangers, open to a domain (`--signup-domain example.com`, issue 43 item 4): a person gives
/// an address at one of the domains (`POST /api/signup/email`), and an invitation for it — one use, an hour,
/// that address — is made and its link mailed there. Its use proves the mailbox, so the account's address
/// is verified, as with any invitation whose link was mailed. What an anonymous caller makes is bounded:
/// `mailLimits` per address (the mail log), `perRequester` live ones per client address or IPv6 /64,
/// `liveLimit` in all, each purged a day after it expired unused (`Housekeeping`).
extension InvitationService {
    static let mailLimits = EmailStore.MailLimits(perAddress: 3, perAccount: 3, window: 3600)
    static let mailedLifetime: TimeInterval = 3600
    static let perRequester = 5
    static let liveLimit = 10_000

    static let signUpByEmailOff = APIError(.notEnabled, "This server takes no sign-ups by email (it was started without --signup-domain).")

    /// Checks the address and its domain, stores the invitation and queues its mail; the answer does not wait
    /// for the SMTP server.
    func requestSignUp(email text: String, language: String? = nil, origin: AuditOrigin) async throws {
        guard !configuration.signUpDomains.isEmpty, let mail else { throw Self.signUpByEmailOff }
        let address = try EmailService.address(text)
        guard configuration.admitsSignUp(byEmail: address.value) else {
            throw APIError(.signupClosed, """
                Only addresses at \(configuration.signUpDomains.joined(separator: " or ")) may sign up here on their own: \
                ask the service's operator for an invitation link.
                """)
        }
        let at = now()
        let requester = origin.clientAddress.flatMap { RateLimitClient(text: $0)?.requesterKey } ?? "unknown"
        let byEmail = origin.acting(as: "email")
        for _ in 0..<5 {
            let code = RecoveryCode.generate()
            let invitation = InvitationRecord(
                id: code.id, secretHash: code.secretHash, accountId: nil, username: nil, email: address.value, groups: [], maxUses: 1,
                createdAt: at, expiresAt: at + Self.mailedLifetime, createdBy: byEmail.actor, requester: requester)
            let outcome: InvitationStore.MailedOutcome
            do {
                outcome = try await store.invitations.insertMailed(
                    invitation, to: address, limits: Self.mailLimits, perRequester: Self.perRequester, liveLimit: Self.liveLimit,
                    event: created(invitation, origin: byEmail))
            } catch is InvitationStore.IdTaken {
                continue  // an id drawn twice (one in 33 million): draw again
            }
            switch outcome {
            case .addressLimited:
                throw APIError(.tooManyEmails, "Enough sign-up links were sent to this address in the last hour: use the latest, or try again later.")
            case .busy:
                throw APIError(.rateLimited, "Too many sign-up links are waiting to be used right now; try again later.")
            case .stored:
                let texts = MailTexts.signUp(
                    service: configuration.brandName ?? configuration.rpName, link: link(for: code), expiresAt: invitation.expiresAt,
                    language: language ?? configuration.defaultLanguage)
                let send: @Sendable () async -> Void = { [store, now] in
                    guard await mail.send(to: address, subject: texts.subject, text: texts.text, purpose: "signup") else { return }
                    // Its use then verifies the address (`InvitationRecord.profile`).
                    try? await store.invitations.markMailed(id: invitation.id, at: now())
                }
                if let outbox { outbox.enqueue(send) } else { await send() }
                return
            }
        }
        throw APIError.internalError
    }
}
