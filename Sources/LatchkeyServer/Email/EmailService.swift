import Foundation
import LatchkeyAPI
import LatchkeyDatabase
import Logging
import WebAuthn

/// Email for recovery (issue 30, item 4), optional and off by default. A signed-in person gives an
/// address (`change`); it is stored unverified and a link `ORIGIN/verify-email#TOKEN` is mailed to it; the
/// person opens it while signed in to the same account (`verify`), which marks the address verified.
/// Anyone may then ask for a recovery link by the address (`requestRecovery`): when it is the verified
/// address of an enabled account and `--recovery-email` is on, a recovery grant is issued as an operator's
/// would be (issuer `email`) and its link and code are mailed. The answer is the same whether or not the
/// address is known, and comes before any of that work is done: the look-up, the grant and the mail run
/// in the outbox (`MailOutbox`). Mails are bounded per address and per account (`limits`, in the
/// database), on top of the per-client rate limit of the API.
///
/// The trade-off, which the README states: whoever controls the mailbox can add a passkey to the account.
struct EmailService: Sendable {
    /// The means to send: nil without `--smtp-url`, and then nothing here sends or asks to.
    struct Mail: Sendable {
        let sender: MailSender
        let outbox: MailOutbox
    }

    let store: Store
    let configuration: ServerConfiguration
    let recovery: RecoveryService
    let sessions: SessionService
    let mail: Mail?
    let logger: Logger
    let now: @Sendable () -> Date

    static let limits = EmailStore.MailLimits(perAddress: 3, perAccount: 5, window: 3600)
    /// How long a confirmation link works.
    static let tokenLifetime: TimeInterval = 24 * 3600
    /// How long a mailed recovery grant lives: the default of an operator's.
    static let recoveryLifetime = RecoveryService.defaultLifetime
    /// Accounts one address may recover at once (an operator may have given several the same address).
    static let accountsPerAddress = 5


    var recoveryByEmail: Bool { mail != nil && configuration.recoveryEmail }

    /// A verified address can add a passkey (with `--recovery-email`), and a passkey outlives every
    /// session: giving or confirming an address needs a sign-in as recent as adding a passkey does, so
    /// that a leaked session token cannot plant a way back in.
    static let recentSignInRequired = APIError(
        .recentSignInRequired, "Changing your email address needs a recent sign-in: sign in with one of your passkeys again, then try again.")

    private func requireRecentSignIn(_ caller: RequestAuthentication.Caller) async throws {
        guard let session = try await sessions.details(for: caller.token) else { throw APIError.notAuthenticated }
        guard session.createdAt >= now() - configuration.addPasskeyWindow else { throw Self.recentSignInRequired }
    }

    // MARK: The signed-in person

    func status(accountId: String) async throws -> AccountEmailJSON {
        guard let profile = try await store.accountProfile(id: accountId) else { throw APIError.notAuthenticated }
        return AccountEmailJSON(email: profile.email, verified: profile.emailVerified, mail: mail != nil, recovery: recoveryByEmail)
    }

    /// Stores the address unverified and queues its confirmation mail (unless the address had its share
    /// of mails this hour: then the answer is the same and no mail goes). Setting the verified address
    /// again changes nothing.
    func change(email text: String, caller signedIn: RequestAuthentication.Caller, origin: AuditOrigin) async throws -> AccountEmailJSON {
        guard let mail else { throw APIError.mailOff }
        let address = try Self.address(text)
        try await requireRecentSignIn(signedIn)
        let caller = signedIn.account
        let token = Base64URL.encode(RandomBytes.make(32))
        let at = now()
        let record = EmailStore.NewEmailToken(
            hash: SecretDigest.of(token), accountId: caller.id, email: address, createdAt: at, expiresAt: at + Self.tokenLifetime)
        let event = origin.event(.accountUpdated, at: at, account: caller.id, detail: ["fields": .text("email")])
        switch try await store.emails.set(record, limits: Self.limits, event: event) {
        case nil:
            throw APIError.notAuthenticated
        case .alreadyVerified:
            return try await status(accountId: caller.id)
        case .accountLimited:
            throw APIError(.tooManyEmails, "Enough emails were sent for this account in the last hour; try again later.")
        case .pending(let send):
            if send {
                let language = (try? await store.language(accountId: caller.id)) ?? configuration.defaultLanguage
                let texts = MailTexts.verification(
                    service: configuration.brandName ?? configuration.rpName, displayName: caller.displayName, link: link("verify-email", token),
                    language: language)
                mail.outbox.enqueue { _ = await mail.sender.send(to: address, subject: texts.subject, text: texts.text, purpose: "verify") }
            }
            return AccountEmailJSON(email: address.value, verified: false, mail: true, recovery: recoveryByEmail)
        }
    }

    /// Marks the address verified with the token its link carried, for the account it was made for.
    func verify(token: String, caller signedIn: RequestAuthentication.Caller, origin: AuditOrigin) async throws -> AccountEmailJSON {
        guard token.utf8.count == 43, let bytes = Base64URL.decode(token), bytes.count == 32 else { throw APIError.unusableEmailLink }
        try await requireRecentSignIn(signedIn)
        let caller = signedIn.account
        let at = now()
        guard let email = try await store.emails.verify(
            tokenHash: SecretDigest.of(token), accountId: caller.id, at: at, event: origin.event(.emailVerified, at: at, account: caller.id))
        else { throw APIError.unusableEmailLink }
        return AccountEmailJSON(email: email, verified: true, mail: mail != nil, recovery: recoveryByEmail)
    }

    /// Removes the address, if there is one (audited only then).
    func remove(caller: AccountRecord, origin: AuditOrigin) async throws {
        let at = now()
        _ = try await store.emails.remove(accountId: caller.id, at: at, event: origin.event(
            .accountUpdated, at: at, account: caller.id, detail: ["fields": .text("email"), "removed": .flag(true)]))
    }

    // MARK: Anyone

    /// Queues the recovery mail for `text`'s address and returns at once, whatever the address: the
    /// caller learns nothing of whether it is known.
    func requestRecovery(email text: String, origin: AuditOrigin) throws {
        guard recoveryByEmail, let mail else { throw APIError.recoveryByEmailOff }
        let address = try Self.address(text)
        mail.outbox.enqueue { await sendRecovery(to: address, origin: origin, mail: mail) }
    }

    /// The outbox's job: for each enabled account with this verified address, under the limits, a grant
    /// (revoking the account's outstanding one, as an operator's issue does) and a mail with its link and
    /// code; `recovery.email_sent` once the server took it.
    func sendRecovery(to address: EmailAddress, origin: AuditOrigin, mail: Mail) async {
        let byEmail = origin.acting(as: "email")
        do {
            for account in try await store.emails.accountsWithVerified(address, limit: Self.accountsPerAddress) {
                // To the address as the account has it (an operator's may be one this server cannot write to).
                guard let stored = try? EmailAddress.parse(account.email).get(),
                      try await store.emails.admit(to: stored, accountId: account.id, purpose: "recovery", at: now(), limits: Self.limits)
                else { continue }
                let issued = try await recovery.issue(accountId: account.id, lifetime: Self.recoveryLifetime, origin: byEmail)
                let language = (try? await store.language(accountId: account.id)) ?? configuration.defaultLanguage
                let texts = MailTexts.recovery(
                    service: configuration.brandName ?? configuration.rpName, displayName: account.displayName, link: issued.link, code: issued.code,
                    page: link("recover", nil), language: language)
                guard await mail.sender.send(to: stored, subject: texts.subject, text: texts.text, purpose: "recovery") else { continue }
                try await store.record(byEmail.event(.recoveryEmailSent, at: now(), account: account.id, detail: ["grantId": .text(issued.grant.id)]))
            }
        } catch {
            logger.warning("recovery mail not sent", metadata: ["error": "\(DatabaseFailure.summary(error))"])
        }
    }

    // MARK: Helpers

    /// `ORIGIN/PAGE#SECRET` (the page's own address without a secret).
    private func link(_ page: String, _ secret: String?) -> String {
        "\(configuration.origins.first ?? "")/\(page)" + (secret.map { "#\($0)" } ?? "")
    }

    /// The address by the profile's rule (`InputRules.email`, as an operator's), and one this server can
    /// write to: plain ASCII, no quoted or bracketed parts (`EmailAddress`).
    static func address(_ text: String) throws -> EmailAddress {
        let checked = try InputRules.email(text)
        switch EmailAddress.parse(checked) {
        case .success(let address): return address
        case .failure(let problem): throw APIError(.emailInvalid, "email \(problem.reason): Latchkey cannot send mail to it.")
        }
    }
}
