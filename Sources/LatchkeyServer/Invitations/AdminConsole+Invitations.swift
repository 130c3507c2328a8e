import Foundation
import LatchkeyAPI
import Logging
import Metrics
import NIOPosix

/// `latchkey admin invites …` and `latchkey admin accounts create`: invitations and operators' accounts,
/// through the same `InvitationService` as the admin API. A broken field rule exits 2 (`run(rulesAreUsage:)`).
extension AdminConsole {
    /// What `invites create` or `accounts create` was given; nil (or empty) is "not given".
    package struct InvitationSettings: Sendable {
        package var username: String?
        package var displayName: String?
        package var email: String?
        package var groups: [String] = []
        package var ttlSeconds: Int?
        package var uses: Int?
        package var send = false
        package var language: String?

        package init() {}

        var request: InvitationCreateRequest {
            InvitationCreateRequest(
                username: username, email: email, groups: groups.isEmpty ? nil : groups, ttlSeconds: ttlSeconds, uses: uses, send: send,
                language: language)
        }
    }

    /// The console's invitations, on its database and configuration; with `sending`, able to mail through
    /// the configured SMTP server (nil when there is none: `send` is then refused as the API refuses it).
    func invitations(sending: Bool) throws -> InvitationService {
        let configuration = service.recovery.configuration
        var mail: MailSender?
        if sending, let server = configuration.smtpServer, let sender = configuration.mailSender {
            var logger = Logger(label: "latchkey-admin")
            logger.logLevel = .warning
            let client = try SMTPClient(
                server: server, heloName: configuration.rpId, eventLoopGroup: MultiThreadedEventLoopGroup.singleton, trustRoots: configuration.smtpCAFile)
            mail = MailSender(client: client, from: sender, logger: logger, metrics: NOOPMetricsHandler.instance)
        }
        return InvitationService(store: service.store, configuration: configuration, mail: mail, now: service.now)
    }

    package func createInvitation(_ settings: InvitationSettings, json: Bool) async throws -> String {
        try await run(rulesAreUsage: true) {
            let issued = try await invitations(sending: settings.send).create(settings.request, origin: .cli)
            if json { return try Self.json(issued) }
            let invitation = issued.invitation
            let uses = invitation.maxUses == 1 ? "one account" : "up to \(invitation.maxUses) accounts, one per use"
            return """
                Invitation \(invitation.id) for \(Self.whom(invitation)), valid until \(Self.text(invitation.expiresAt)); it makes \(uses). \
                Give the person this link — it is shown once:

                    \(issued.link)

                Opening it, they make their account\(Self.profile(invitation)) and its first passkey; only the code's hash is stored.
                """ + Self.mailed(issued, asked: settings.send)
        }
    }

    package func invitationList(json: Bool) async throws -> String {
        try await run {
            let invitations = try await invitations(sending: false).invitations()
            if json { return try Self.json(invitations) }
            var lines = Table(["INVITATION", "STATE", "USES", "FOR", "GROUPS", "EXPIRES", "BY", "MAILED"])
            for invitation in invitations {
                lines.add([
                    invitation.id, invitation.state, "\(invitation.uses)/\(invitation.maxUses)", Self.whom(invitation),
                    invitation.groups.isEmpty ? "-" : invitation.groups.joined(separator: " "), Self.text(invitation.expiresAt), invitation.createdBy,
                    Self.text(invitation.mailedAt),
                ])
            }
            return lines.text
        }
    }

    package func revokeInvitation(id: String) async throws -> String {
        try await run {
            try await invitations(sending: false).revoke(id: id, origin: .cli)
            return "Revoked invitation \(id): its link no longer works, and sessions it opened that added no passkey have ended."
        }
    }

    package func createAccount(_ settings: InvitationSettings, json: Bool) async throws -> String {
        try await run(rulesAreUsage: true) {
            let created = try await invitations(sending: settings.send).createAccount(
                AccountCreateRequest(displayName: settings.displayName, invitation: settings.request), origin: .cli)
            let detail = try await service.account(id: created.accountId)
            let issued = created.issued
            if json {
                return try Self.json(AccountCreatedJSON(
                    account: detail, invitation: issued.invitation, code: issued.code, link: issued.link, mailed: issued.mailed))
            }
            return """
                Created account \(created.accountId) (\(detail.username ?? "-"), "\(detail.account.displayName)") without a passkey. \
                Give the person this link to add its first passkey — it works once, until \(Self.text(issued.invitation.expiresAt)), and is shown once:

                    \(issued.link)
                """ + Self.mailed(issued, asked: settings.send)
        }
    }

    // MARK: Text

    static func whom(_ invitation: InvitationJSON) -> String {
        let named = [invitation.username, invitation.email].compactMap { $0 }.joined(separator: " ")
        if let account = invitation.accountId { return "account \(account)" + (named.isEmpty ? "" : " (\(named))") }
        return named.isEmpty ? "anyone with the link" : named
    }

    static func profile(_ invitation: InvitationJSON) -> String {
        var parts: [String] = []
        if let username = invitation.username { parts.append("username \(username)") }
        if let email = invitation.email { parts.append("email \(email)") }
        if !invitation.groups.isEmpty { parts.append("groups \(invitation.groups.joined(separator: " "))") }
        return parts.isEmpty ? "" : " (\(parts.joined(separator: ", ")))"
    }

    /// Whether `--send` did what it asked.
    static func mailed(_ issued: InvitationIssuedJSON, asked: Bool) -> String {
        guard asked else { return "" }
        return issued.mailed
            ? "\nMailed to \(issued.invitation.email ?? "its address")."
            : "\nNot mailed: the SMTP server did not take it (the log says why); give the link by hand."
    }
}
