import Foundation
import HTTPTypes
import SoftAuthenticator
import Testing
@testable import LatchkeyServer

/// Closed to strangers, open to a domain (`--signup-domain`, issue 43 item 4): an address at the domain gets
/// a single-use link by mail (through an SMTP relay in the test's process), whose use makes the account with
/// that address verified; other domains are refused, and what an anonymous caller can make is bounded.
@Suite("Sign-up by a link mailed to an address at a --signup-domain")
struct SignUpDomainTests {
    @Test("the setting needs domain names, an SMTP server and a policy that takes invitations")
    func validation() throws {
        func configuration(_ adjust: (inout ServerConfiguration) -> Void) -> ServerConfiguration {
            TestServer.configuration {
                $0.signUp = .invite
                $0.signUpDomains = ["example.com"]
                $0.smtpURL = "smtp://127.0.0.1:25"
                adjust(&$0)
            }
        }
        try configuration { _ in }.validate()
        try configuration { $0.signUpDomains = ["Example.COM", "mail.example.org"] }.validate()
        for (bad, sentence) in [
            (configuration { $0.smtpURL = nil }, "needs --smtp-url"), (configuration { $0.signUp = .closed }, "--signup closed lets nobody"),
            (configuration { $0.signUpDomains = ["example"] }, "a domain name"), (configuration { $0.signUpDomains = ["ex ample.com"] }, "a domain name"),
            (configuration { $0.signUpDomains = ["-x.com"] }, "a domain name"), (configuration { $0.signUpDomains = ["@example.com"] }, "a domain name"),
        ] {
            #expect(throws: ServerConfiguration.Invalid.self, "\(sentence)") { try bad.validate() }
            do { try bad.validate() } catch { #expect(error.description.contains(sentence), "\(error)") }
        }
    }

    @Test("an address at the domain gets a link that makes its account, the address verified; others are refused; bounded")
    func mailedLink() async throws {
        let relay = try await TestRelay(startTLS: .notOffered, requireTLS: false)
        let configuration = TestServer.configuration {
            $0.signUp = .invite
            $0.signUpDomains = ["example.com"]
            $0.smtpURL = "smtp://127.0.0.1:\(relay.port)"
        }
        try await InvitationTestFlow.run(configuration, over: .live) { flow in
            let policy = try await flow.api.send(.get, "/api/signup")
            #expect(policy.json?["policy"] as? String == "invite" && policy.json?["domains"] as? [String] == ["example.com"], "\(policy.text)")
            let elsewhere = try await flow.api.send(.post, "/api/signup/email", object: ["email": "ada@elsewhere.org"])
            #expect(elsewhere.status == .forbidden && elsewhere.errorCode == "signup_closed", "\(elsewhere.text)")
            let broken = try await flow.api.send(.post, "/api/signup/email", object: ["email": "not an address"])
            #expect(broken.status.code == 422 && broken.errorCode == "email_invalid", "\(broken.text)")
            #expect(try await flow.api.send(.post, "/api/signup/email", object: ["email": "ada@sub.example.com"]).errorCode == "signup_closed")

            let sent = try await flow.api.send(.post, "/api/signup/email", object: ["email": "Ada@Example.COM"])
            #expect(sent.status == .accepted && sent.json?["status"] as? String == "sent", "\(sent.text)")
            let text = try await Self.message(relay, number: 1)
            #expect(text.contains("Make your account at Latchkey"))
            let code = try #require(text.firstMatch(of: /\/invite#([A-Z2-7]{5}(?:-[A-Z2-7]{5}){4})/)?.1).description
            // The use verifies the address once the relay took the mail (noted after the send returned).
            try await Self.waitUntilMailed(flow)
            let session = try await flow.use(code, displayName: "Ada")
            #expect(try await flow.addPasskey(token: session.token, with: SoftAuthenticator(store: InMemoryCredentialStore())).status == .created)
            let account = try await flow.account(session.accountId)
            #expect(account["email"] as? String == "Ada@example.com" && account["emailVerified"] as? Bool == true, "\(account)")
            #expect(account["username"] is NSNull && account["groups"] as? [String] == [])

            // Three links an hour to one address; five waiting per requester.
            for _ in 0..<2 { #expect(try await flow.api.send(.post, "/api/signup/email", object: ["email": "ada@example.com"]).status == .accepted) }
            let fourth = try await flow.api.send(.post, "/api/signup/email", object: ["email": "ada@example.com"])
            #expect(fourth.status == .tooManyRequests && fourth.errorCode == "too_many_emails", "\(fourth.text)")
            for name in ["bob", "carol", "dan"] {
                #expect(try await flow.api.send(.post, "/api/signup/email", object: ["email": "\(name)@example.com"]).status == .accepted)
            }
            let busy = try await flow.api.send(.post, "/api/signup/email", object: ["email": "erin@example.com"])
            #expect(busy.status == .tooManyRequests && busy.errorCode == "rate_limited", "\(busy.text)")
            #expect(try await flow.accountCount() == 1)
        }
        try await relay.stop()
    }

    @Test("no account yet: the link is mailed in the page's language (its choice, else Accept-Language, else --default-language)")
    func mailedInThePagesLanguage() async throws {
        let relay = try await TestRelay(startTLS: .notOffered, requireTLS: false)
        let configuration = TestServer.configuration {
            $0.signUp = .invite
            $0.signUpDomains = ["example.com"]
            $0.smtpURL = "smtp://127.0.0.1:\(relay.port)"
            $0.defaultLanguage = "fr"
        }
        try await InvitationTestFlow.run(configuration, over: .live) { flow in
            func ask(_ body: [String: Any], acceptLanguage: String?) async throws {
                var headers = HTTPFields()
                if let acceptLanguage { headers[.acceptLanguage] = acceptLanguage }
                let reply = try await flow.api.send(
                    .post, "/api/signup/email", body: try JSONSerialization.data(withJSONObject: body), headers: headers)
                #expect(reply.status == .accepted, "\(reply.text)")
            }
            // The picker's choice wins over the browser's header.
            try await ask(["email": "ada@example.com", "language": "de"], acceptLanguage: "ja, en;q=0.5")
            let german = Mailroom.decoded(try await Self.message(relay, number: 1))
            #expect(german.contains("ein Konto bei Latchkey zu erstellen"), "\(german)")
            // A choice Latchkey does not ship is passed over for Accept-Language.
            try await ask(["email": "bob@example.com", "language": "tlh"], acceptLanguage: "ja-JP, en;q=0.5")
            let japanese = Mailroom.decoded(try await Self.message(relay, number: 2))
            #expect(japanese.contains("Latchkey のアカウント作成を求めました"), "\(japanese)")
            // Neither: the server's --default-language.
            try await ask(["email": "carol@example.com"], acceptLanguage: nil)
            let french = Mailroom.decoded(try await Self.message(relay, number: 3))
            #expect(french.contains("a demandé à créer un compte sur Latchkey"), "\(french)")
            // Over-long language: passed over like any unknown one, never an error.
            try await ask(["email": "dan@example.com", "language": String(repeating: "x", count: 500)], acceptLanguage: "sv")
            #expect(Mailroom.decoded(try await Self.message(relay, number: 4)).contains("a demandé à créer un compte"))
        }
        try await relay.stop()
    }

    @Test("an operator's invitation is mailed in the language they give, which becomes the account's; an unknown one is refused")
    func operatorsLanguage() async throws {
        let relay = try await TestRelay(startTLS: .notOffered, requireTLS: false)
        let configuration = TestServer.configuration {
            $0.signUp = .invite
            $0.smtpURL = "smtp://127.0.0.1:\(relay.port)"
        }
        try await InvitationTestFlow.run(configuration, over: .live) { flow in
            let unknown = try await flow.api.send(
                .post, "/api/admin/invites", object: ["email": "ada@example.com", "send": true, "language": "tlh"], token: flow.adminKey)
            #expect(unknown.status.code == 422 && unknown.errorCode == "invalid_field", "\(unknown.text)")
            _ = try await flow.invite(["email": "ada@example.com", "send": true, "language": "PT-br"])
            let portuguese = Mailroom.decoded(try await Self.message(relay, number: 1))
            #expect(portuguese.contains("Você foi convidado a criar uma conta no Latchkey"), "\(portuguese)")
            _ = try await flow.invite(["email": "bob@example.com", "send": true])
            #expect(Mailroom.decoded(try await Self.message(relay, number: 2)).contains("You are invited to make an account at Latchkey"))

            let made = try await flow.api.send(
                .post, "/api/admin/accounts", object: ["username": "kenji", "email": "kenji@example.com", "send": true, "language": "ja"],
                token: flow.adminKey)
            #expect(made.status == .created, "\(made.text)")
            let japanese = Mailroom.decoded(try await Self.message(relay, number: 3))
            #expect(japanese.contains("Latchkey のアカウント作成に招待されました"), "\(japanese)")
            let accountId = try #require(((made.json?["account"] as? [String: Any])?["account"] as? [String: Any])?["id"] as? String, "\(made.text)")
            #expect(try await flow.application.store.language(accountId: accountId) == "ja", "the account's mails go in it too")
        }
        try await relay.stop()
    }

    @Test("without --signup-domain the route says not_enabled")
    func notEnabled() async throws {
        try await TestServer.run(TestServer.configuration { $0.signUp = .invite }) { api in
            let reply = try await api.send(.post, "/api/signup/email", object: ["email": "ada@example.com"])
            #expect(reply.status == .notFound && reply.errorCode == "not_enabled", "\(reply.text)")
            #expect(try await api.send(.get, "/api/signup").json?["domains"] as? [String] == [])
        }
    }

    @Test("the store bounds what asking by mail makes, and the housekeeping forgets the unused ones a day after they expired",
          arguments: Backends.all)
    func storeBoundsAndPurge(backend: String) async throws {
        try await Backends.with(backend) { store in
            let at = Date(timeIntervalSince1970: 1_800_000_000)
            func mailed(_ name: String, requester: String = "192.0.2.1", at: Date = at) async throws -> InvitationStore.MailedOutcome {
                let code = RecoveryCode.generate()
                let address = try EmailService.address("\(name)@example.com")
                let invitation = InvitationRecord(
                    id: code.id, secretHash: code.secretHash, accountId: nil, username: nil, email: address.value, groups: [], maxUses: 1,
                    createdAt: at, expiresAt: at + 3600, createdBy: "email", requester: requester)
                return try await store.invitations.insertMailed(
                    invitation, to: address, limits: InvitationService.mailLimits, perRequester: 2, liveLimit: 3,
                    event: AuditOrigin.test.event(.inviteCreated, at: at, account: nil))
            }
            // Per requester (2 here) and in all (3 here).
            #expect(try await mailed("ada") == .stored)
            #expect(try await mailed("bob") == .stored)
            #expect(try await mailed("carol") == .busy, "two live ones for this requester")
            #expect(try await mailed("carol", requester: "198.51.100.7") == .stored)
            #expect(try await mailed("dan", requester: "203.0.113.9") == .busy, "three live ones in all")
            // Per address (3 an hour), once those expired.
            for requester in ["198.51.100.1", "198.51.100.2", "198.51.100.3"] {
                #expect(try await mailed("erin", requester: requester, at: at + 7200) == .stored)
            }
            #expect(try await mailed("erin", requester: "198.51.100.4", at: at + 7200) == .addressLimited, "three to erin within the hour")
            let operators = InvitationRecord(
                id: "OPERA", secretHash: [1], accountId: nil, username: nil, email: nil, groups: [], maxUses: 1,
                createdAt: at, expiresAt: at + 60, createdBy: "cli")
            #expect(try await store.invitations.insert(operators, events: []))
            try await store.invitations.purgeMailed(before: at + 3601)
            let left = try await store.invitations.recent(limit: 10)
            #expect(left.count == 4 && left.contains { $0.id == "OPERA" }, "an operator's stays; only the expired unused mailed ones go: \(left.map(\.id))")
        }
    }

    /// The text of the relay's `number`th message (from 1), once it came (10 s at most).
    static func message(_ relay: TestRelay, number: Int) async throws -> String {
        for _ in 0..<200 where relay.messages.count < number { try await Task.sleep(for: .milliseconds(50)) }
        let messages = relay.messages
        try #require(messages.count >= number, "no mail number \(number)")
        // Quoted-printable soft line breaks joined, so that the link is whole.
        return messages[number - 1].text.replacingOccurrences(of: "=\r\n", with: "").replacingOccurrences(of: "=\n", with: "")
    }

    static func waitUntilMailed(_ flow: InvitationTestFlow) async throws {
        for _ in 0..<200 {
            let list = try await flow.api.send(.get, "/api/admin/invites", token: flow.adminKey)
            if list.array?.first?["mailedAt"] is String { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        Issue.record("the invitation was never marked mailed")
    }
}
