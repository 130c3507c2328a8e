import Foundation
import SoftAuthenticator
import Testing
@testable import LatchkeyServer

/// Email for recovery in process (`EmailService` through `MailOutbox` and `MailSender` to a relay on
/// 127.0.0.1), as Tests/System/Recovery/test_recovery_email.py does with the binary and a real SMTP server:
/// the person gives an address, confirms it with the mailed link, and may then have a recovery link
/// mailed to it, whose code adds a passkey. An address that is unknown or not confirmed gets the same
/// answer and no mail; the routes say `not_enabled` without SMTP or `--recovery-email`; changing the
/// address needs a recent sign-in; an account gets at most 5 mails an hour.
@Suite("Email for recovery, in process")
struct EmailRecoveryTests {
    static let accepted = #"{"status":"sent-if-known"}"#

    static func status(_ room: Mailroom, token: String) async throws -> [String: Any] {
        let reply = try await room.api.send(.get, "/api/account/email", token: token)
        try #require(reply.status == .ok, "\(reply.text)")
        return try #require(reply.json)
    }

    @Test("a confirmed address gets a recovery link whose code adds a passkey; the trail says it was mailed, never to what address")
    func confirmedAddressRecovers() async throws {
        try await Mailroom.run { room in
            let api = room.api
            let ada = try await api.signUp("Ada Lovelace")
            let initial = try await Self.status(room, token: ada.token)
            #expect(initial["email"] is NSNull && initial["verified"] as? Bool == false && initial["mail"] as? Bool == true && initial["recovery"] as? Bool == true)
            #expect(try await api.send(.get, "/api/recovery/email").json?["enabled"] as? Bool == true)

            let set = try await room.setEmail("  Ada@Example.COM ", token: ada.token)
            #expect(set.status == .ok && set.json?["email"] as? String == "Ada@example.com" && set.json?["verified"] as? Bool == false, "\(set.text)")
            let confirmation = try await room.mail(1)
            #expect(confirmation.contains("\r\nTo: Ada@example.com\r\n") && confirmation.contains("Subject: Confirm your email address"), "\(confirmation)")
            #expect(confirmation.contains("Hello Ada Lovelace,"), "\(confirmation)")
            let token = try Mailroom.confirmationToken(in: confirmation)

            // Not confirmed yet: asking for a recovery link by it answers the same and mails nothing.
            let early = try await room.askForRecovery("ada@example.com")
            #expect(early.status == .accepted && early.text == Self.accepted, "\(early.text)")
            try await room.waitForJobs(2)
            #expect(room.relay.messages.count == 1)

            // The link works for its own account only, signed in, once.
            let charles = try await api.signUp("Charles Babbage")
            #expect(try await api.send(.post, "/api/account/email/verify", object: ["token": token], token: charles.token).errorCode == "unknown_email_token")
            #expect(try await api.send(.post, "/api/account/email/verify", object: ["token": token]).status == .unauthorized)
            let verified = try await api.send(.post, "/api/account/email/verify", object: ["token": token], token: ada.token)
            #expect(verified.status == .ok && verified.json?["verified"] as? Bool == true, "\(verified.text)")
            #expect(try await api.send(.post, "/api/account/email/verify", object: ["token": token], token: ada.token).status == .notFound)

            let asked = try await room.askForRecovery("ADA@example.com")
            #expect(asked.status == .accepted && asked.text == Self.accepted)
            let recovery = try await room.mail(2)
            #expect(recovery.contains("\r\nTo: Ada@example.com\r\n") && recovery.contains("Subject: Your recovery link"), "\(recovery)")
            let code = try Mailroom.recoveryCode(in: recovery)
            #expect(recovery.contains("\n\(code)\r\n") || recovery.contains("\n\(code)\n"), "the code on a line of its own: \(recovery)")

            let exchanged = try await RecoveryGrantTests.exchange(api, code)
            let restricted = try #require(exchanged.json?["token"] as? String, "\(exchanged.text)")
            let newDevice = SoftAuthenticator(store: InMemoryCredentialStore())
            #expect(try await api.addPasskey(with: restricted, from: newDevice).status == .created)
            #expect(try await api.signIn(with: newDevice).accountId == ada.accountId)
            #expect(try await api.send(.get, "/api/account", token: ada.token).status == .unauthorized, "recovery ended the old session")

            let key = try await OIDCClientFactsTests.adminKey(room.application.store, scope: .read)
            let trail = try await api.auditTrail(key: key, account: ada.accountId)
            let issued = try #require(trail.first { $0["event"] as? String == "recovery.issued" }, "\(trail)")
            #expect(issued["actor"] as? String == "email" && (issued["detail"] as? [String: Any])?["by"] as? String == "email", "\(issued)")
            let sent = try #require(trail.first { $0["event"] as? String == "recovery.email_sent" })
            let grantId = try #require((issued["detail"] as? [String: Any])?["grantId"] as? String)
            #expect((sent["detail"] as? [String: Any])?.keys.sorted() == ["grantId"] && (sent["detail"] as? [String: Any])?["grantId"] as? String == grantId)
            #expect(trail.contains { $0["event"] as? String == "account.email_verified" })
            #expect(!(try await api.send(.get, "/api/admin/audit?limit=100", token: key).text.lowercased().contains("ada@example.com")))
        }
    }

    @Test("an unknown or unconfirmed address gets the same 202 as a known one, and no mail")
    func sameAnswerNoMail() async throws {
        try await Mailroom.run { room in
            let grace = try await room.api.signUp("Grace Hopper")
            #expect(try await room.setEmail("grace@example.com", token: grace.token).status == .ok)
            _ = try await room.mail(1)
            var answers: Set<String> = []
            for address in ["grace@example.com", "nobody@example.com", "GRACE@example.com"] {
                let reply = try await room.askForRecovery(address)
                #expect(reply.status == .accepted, "\(reply.text)")
                answers.insert(reply.text)
            }
            #expect(answers == [Self.accepted])
            try await room.waitForJobs(4)
            #expect(room.relay.messages.count == 1, "only the confirmation went out")
            let malformed = try await room.askForRecovery("not an address")
            #expect(malformed.status == .unprocessableContent && malformed.errorCode == "email_invalid", "\(malformed.text)")
        }
    }

    @Test("without SMTP, or without --recovery-email, the routes say not_enabled and send nothing")
    func notEnabled() async throws {
        try await TestServer.run { api in
            let ada = try await api.signUp()
            let status = try await api.send(.get, "/api/account/email", token: ada.token)
            #expect(status.json?["mail"] as? Bool == false && status.json?["recovery"] as? Bool == false, "\(status.text)")
            #expect(try await api.send(.get, "/api/recovery/email").json?["enabled"] as? Bool == false)
            let set = try await api.send(.put, "/api/account/email", object: ["email": "ada@example.com"], token: ada.token)
            #expect(set.status == .notFound && set.errorCode == "not_enabled", "\(set.text)")
            #expect(try await api.send(.post, "/api/recovery/email", object: ["email": "ada@example.com"]).errorCode == "not_enabled")
        }
        try await Mailroom.run(recoveryEmail: false) { room in
            let ada = try await room.api.signUp()
            #expect(try await room.setEmail("ada@example.com", token: ada.token).status == .ok, "an address can still be confirmed")
            #expect(try await room.api.send(.get, "/api/recovery/email").json?["enabled"] as? Bool == false)
            let asked = try await room.askForRecovery("ada@example.com")
            #expect(asked.status == .notFound && asked.errorCode == "not_enabled", "\(asked.text)")
            _ = try await room.mail(1)
        }
    }

    @Test("giving or confirming an address needs a sign-in as recent as adding a passkey does; an account gets at most 5 mails an hour")
    func recentSignInAndAccountLimit() async throws {
        let clock = TestClock()
        try await Mailroom.run(now: { clock.now }) { room in
            let api = room.api
            let ada = try await api.signUp()
            #expect(try await room.setEmail("ada@example.com", token: ada.token).status == .ok)
            let token = try Mailroom.confirmationToken(in: try await room.mail(1))
            clock.advance(by: 10 * 60 + 1)
            let stale = try await room.setEmail("other@example.com", token: ada.token)
            #expect(stale.status == .forbidden && stale.errorCode == "recent_sign_in_required", "\(stale.text)")
            let staleVerify = try await api.send(.post, "/api/account/email/verify", object: ["token": token], token: ada.token)
            #expect(staleVerify.errorCode == "recent_sign_in_required", "\(staleVerify.text)")
            #expect(try await Self.status(room, token: ada.token)["email"] as? String == "ada@example.com", "nothing changed")

            let fresh = try await api.signIn(with: ada.authenticator)
            #expect(try await api.send(.post, "/api/account/email/verify", object: ["token": token], token: fresh.token).json?["verified"] as? Bool == true)
            for n in 2...5 {
                #expect(try await room.setEmail("ada\(n)@example.com", token: fresh.token).status == .ok)
            }
            let sixth = try await room.setEmail("ada6@example.com", token: fresh.token)
            #expect(sixth.status == .tooManyRequests && sixth.errorCode == "too_many_emails", "\(sixth.text)")
            #expect(try await Self.status(room, token: fresh.token)["email"] as? String == "ada5@example.com")
            _ = try await room.mail(5)
            #expect(try await api.send(.delete, "/api/account/email", token: fresh.token).status == .noContent)
            #expect(try await Self.status(room, token: fresh.token)["email"] is NSNull)
        }
    }
}
