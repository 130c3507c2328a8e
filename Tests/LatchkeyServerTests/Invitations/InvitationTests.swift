import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import SoftAuthenticator
import Testing
@testable import LatchkeyServer

/// Invitations in process (issue 43): made by an operator, looked at and used by a person for a restricted
/// session that adds the new account's first passkey and nothing else; the account gets the invitation's
/// username, email and groups; a multi-use invitation makes one account per use; used, expired, revoked and
/// mistyped codes all get one answer; of 20 concurrent uses of a one-use code one wins; no code in the
/// database in any form.
@Suite("Invitations: made by an operator, used once per account for its first passkey")
struct InvitationTests {
    static let refusal = "This invitation cannot be used: it may be mistyped, expired, used up or revoked. Ask for a new one."

    @Test("an invitation end to end: preview, use, first passkey; the account has its username, email and groups and signs in")
    func endToEnd() async throws {
        try await InvitationTestFlow.run { flow in
            let issued = try await flow.invite(["username": "grace", "email": "grace@example.com", "groups": ["staff", "ops"]])
            let code = try InvitationTestFlow.code(issued)
            #expect(code.range(of: #"^[A-Z2-7]{5}(-[A-Z2-7]{5}){4}$"#, options: .regularExpression) != nil, "\(code)")
            #expect(issued["link"] as? String == "\(TestServer.origin)/invite#\(code)")
            #expect(issued["mailed"] as? Bool == false)
            let invitation = try #require(issued["invitation"] as? [String: Any])
            #expect(invitation["state"] as? String == "live" && invitation["uses"] as? Int == 0 && invitation["maxUses"] as? Int == 1)

            let preview = try await flow.preview(code.lowercased().replacingOccurrences(of: "-", with: " "))
            #expect(preview.status == .ok, "\(preview.text)")
            #expect(preview.json?["service"] as? String == "Latchkey" && preview.json?["newAccount"] as? Bool == true)
            #expect(preview.json?["username"] as? String == "grace" && preview.json?["groups"] as? [String] == ["staff", "ops"])
            #expect(try await flow.accountCount() == 0, "looking at an invitation uses nothing")

            let session = try await flow.use(code)
            #expect(session.token.hasPrefix(SessionToken.recoveryPrefix))
            let authenticator = SoftAuthenticator(store: InMemoryCredentialStore())
            let added = try await flow.addPasskey(token: session.token, with: authenticator)
            #expect(added.status == .created, "\(added.text)")
            // Used up with the passkey: the session is gone, and the code gets the one answer.
            #expect(try await flow.api.send(.post, "/api/registration/options", object: [:], token: session.token).status == .unauthorized)
            let again = try await flow.exchange(code)
            #expect(again.status == .unauthorized && again.errorCode == "invalid_invitation", "\(again.text)")
            #expect((again.json?["error"] as? [String: Any])?["message"] as? String == Self.refusal)

            let account = try await flow.account(session.accountId)
            #expect(account["username"] as? String == "grace")
            #expect(account["email"] as? String == "grace@example.com")
            #expect(account["emailVerified"] as? Bool == false, "the link was not mailed: the address is the operator's word")
            #expect(account["groups"] as? [String] == ["staff", "ops"])
            #expect((account["account"] as? [String: Any])?["displayName"] as? String == "Grace Hopper")
            #expect((account["passkeys"] as? [Any])?.count == 1)

            let login = try await flow.api.login(with: authenticator)
            #expect(login.status == .ok, "\(login.text)")
            #expect((login.json?["account"] as? [String: Any])?["id"] as? String == session.accountId)

            let events = try await flow.events(of: session.accountId)
            #expect(events.starts(with: ["account.created", "invite.used", "passkey.added"]), "\(events)")
            let list = try await flow.api.send(.get, "/api/admin/invites", token: flow.adminKey)
            #expect(list.array?.first?["state"] as? String == "used" && list.array?.first?["uses"] as? Int == 1, "\(list.text)")
        }
    }

    @Test("the restricted session may add the first passkey and nothing else: every other route is 403, one passkey at most")
    func restrictedSession() async throws {
        try await InvitationTestFlow.run { flow in
            let session = try await flow.use(try InvitationTestFlow.code(try await flow.invite()))
            for (method, path) in [
                (HTTPRequest.Method.get, "/api/account"), (.patch, "/api/account"), (.delete, "/api/account"), (.get, "/api/account/passkeys"),
                (.post, "/api/token"), (.post, "/api/logout/everywhere"), (.post, "/api/invites/exchange"), (.get, "/api/admin/invites"),
                (.put, "/api/account/email"), (.post, "/api/oidc/authorization"),
            ] {
                let reply = try await flow.api.send(method, path, body: Data("{}".utf8), token: session.token)
                #expect(reply.status == .forbidden && reply.errorCode == "recovery_session_restricted", "\(method) \(path): \(reply.text)")
            }
            // Two ceremonies started with it: the first passkey is added, the second is refused.
            let first = SoftAuthenticator(store: InMemoryCredentialStore())
            let second = SoftAuthenticator(store: InMemoryCredentialStore())
            let firstOptions = try flow.api.creationOptions(try await flow.api.send(.post, "/api/registration/options", object: [:], token: session.token))
            let secondOptions = try flow.api.creationOptions(try await flow.api.send(.post, "/api/registration/options", object: [:], token: session.token))
            let firstCredential = try first.makeCredential(firstOptions, origin: TestServer.origin)
            let secondCredential = try second.makeCredential(secondOptions, origin: TestServer.origin)
            let added = try await flow.api.send(.post, "/api/registration/verify", json: ["credential": firstCredential], token: session.token)
            #expect(added.status == .created, "\(added.text)")
            let refused = try await flow.api.send(.post, "/api/registration/verify", json: ["credential": secondCredential], token: session.token)
            #expect(refused.status == .unauthorized, "\(refused.text)")
            #expect((try await flow.account(session.accountId)["passkeys"] as? [Any])?.count == 1)
        }
    }

    @Test("a multi-use invitation makes one account per use, each with its groups, until it is used up")
    func multiUse() async throws {
        try await InvitationTestFlow.run { flow in
            let code = try InvitationTestFlow.code(try await flow.invite(["uses": 3, "groups": ["team"]]))
            var accounts: Set<String> = []
            for name in ["Ada", "Alan", "Barbara"] {
                let session = try await flow.use(code, displayName: name)
                #expect(try await flow.addPasskey(token: session.token, with: SoftAuthenticator(store: InMemoryCredentialStore())).status == .created)
                let account = try await flow.account(session.accountId)
                #expect(account["groups"] as? [String] == ["team"] && account["username"] is NSNull)
                #expect((account["account"] as? [String: Any])?["displayName"] as? String == name)
                accounts.insert(session.accountId)
            }
            #expect(accounts.count == 3)
            #expect(try await flow.exchange(code, displayName: "Dennis").errorCode == "invalid_invitation")
            #expect(try await flow.accountCount() == 3)
            // Several people cannot share one username or address.
            let shared = try await flow.api.send(.post, "/api/admin/invites", object: ["uses": 2, "username": "team"], token: flow.adminKey)
            #expect(shared.status.code == 422 && shared.errorCode == "invalid_field", "\(shared.text)")
        }
    }

    @Test("used, expired, revoked, over-guessed and mistyped codes get one answer; a new account needs a name")
    func refusalsAlike() async throws {
        let clock = AccessTokenTests.Clock(Date(timeIntervalSince1970: 1_800_000_000))
        try await InvitationTestFlow.run(now: clock.now) { flow in
            func refused(_ code: String, _ why: String) async throws {
                for reply in [try await flow.preview(code), try await flow.exchange(code)] {
                    #expect(reply.status == .unauthorized && reply.errorCode == "invalid_invitation", "\(why): \(reply.text)")
                    #expect((reply.json?["error"] as? [String: Any])?["message"] as? String == Self.refusal, "\(why)")
                }
            }
            let named = try InvitationTestFlow.code(try await flow.invite())
            let nameless = try await flow.exchange(named, displayName: nil)
            #expect(nameless.status == .badRequest && nameless.errorCode == "missing_field", "\(nameless.text)")

            let expiring = try InvitationTestFlow.code(try await flow.invite(["ttlSeconds": 300]))
            let revoked = try await flow.invite()
            let revokedId = try #require((revoked["invitation"] as? [String: Any])?["id"] as? String)
            #expect(try await flow.api.send(.delete, "/api/admin/invites/\(revokedId)", token: flow.adminKey).status == .noContent)
            #expect(try await flow.api.send(.delete, "/api/admin/invites/\(revokedId)", token: flow.adminKey).errorCode == "unknown_invitation")
            let guessed = try InvitationTestFlow.code(try await flow.invite())
            for attempt in 0..<RecoveryService.attemptLimit {
                _ = try await flow.preview(String(guessed.prefix(5)) + "-AAAAA-AAAAA-AAAAA-AAAA" + (attempt % 2 == 0 ? "B" : "C"))
            }
            clock.set(Date(timeIntervalSince1970: 1_800_000_301))
            try await refused(expiring, "expired")
            try await refused(try InvitationTestFlow.code(revoked), "revoked")
            try await refused(guessed, "five wrong tries revoked it")
            try await refused("KQ4MX-7BD2A-AAAAA-BBBBB-CCCCC", "unknown")
            try await refused("not a code", "mistyped")
            try await refused(String(repeating: "A", count: 5000), "too long")
            #expect(try await flow.accountCount() == 0)
        }
    }

    @Test("20 concurrent uses of a one-use code make exactly one account")
    func concurrentUses() async throws {
        try await InvitationTestFlow.run { flow in
            let code = try InvitationTestFlow.code(try await flow.invite())
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<20 {
                    group.addTask { try await flow.exchange(code, displayName: "Person \(index)").status.code }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses.filter { $0 == 201 }.count == 1, "\(statuses)")
            #expect(statuses.filter { $0 == 401 }.count == 19, "\(statuses)")
            #expect(try await flow.accountCount() == 1)
        }
    }

    @Test("an operator's account: no passkey, its profile, an invitation whose use opens that account for its first passkey")
    func operatorAccount() async throws {
        try await InvitationTestFlow.run(TestServer.configuration { $0.signUp = .closed }) { flow in
            // Closed: no invitation for new people, but operators make accounts.
            let closed = try await flow.api.send(.post, "/api/admin/invites", object: [:], token: flow.adminKey)
            #expect(closed.status == .forbidden && closed.errorCode == "signup_closed", "\(closed.text)")
            let reply = try await flow.api.send(.post, "/api/admin/accounts", object: [
                "username": "Linus", "displayName": "Linus T.", "email": "linus@example.com", "groups": ["kernel"],
            ], token: flow.adminKey)
            try #require(reply.status == .created, "\(reply.text)")
            let account = try #require(reply.json?["account"] as? [String: Any])
            let accountId = try #require((account["account"] as? [String: Any])?["id"] as? String)
            #expect(account["username"] as? String == "linus" && (account["passkeys"] as? [Any])?.isEmpty == true)
            #expect((reply.json?["invitation"] as? [String: Any])?["accountId"] as? String == accountId)
            let code = try #require(reply.json?["code"] as? String)

            let taken = try await flow.api.send(.post, "/api/admin/accounts", object: ["username": "linus"], token: flow.adminKey)
            #expect(taken.status == .conflict && taken.errorCode == "username_taken", "\(taken.text)")
            let nameless = try await flow.api.send(.post, "/api/admin/accounts", object: ["email": "x@example.com"], token: flow.adminKey)
            #expect(nameless.status == .badRequest && nameless.errorCode == "missing_field", "\(nameless.text)")

            let preview = try await flow.preview(code)
            #expect(preview.json?["newAccount"] as? Bool == false && preview.json?["displayName"] as? String == "Linus T.", "\(preview.text)")
            let session = try await flow.use(code, displayName: "Ignored")
            #expect(session.accountId == accountId)
            #expect(try await flow.addPasskey(token: session.token, with: SoftAuthenticator(store: InMemoryCredentialStore())).status == .created)
            let after = try await flow.account(accountId)
            #expect((after["account"] as? [String: Any])?["displayName"] as? String == "Linus T." && (after["passkeys"] as? [Any])?.count == 1)
            #expect(try await flow.accountCount() == 1)
            let events = try await flow.events(of: accountId)
            #expect(events.starts(with: ["account.created_by_operator", "invite.created", "invite.used", "passkey.added"]), "\(events)")
        }
    }

    @Test("an operator's account that got a passkey another way no longer takes its invitation")
    func operatorAccountWithPasskey() async throws {
        try await InvitationTestFlow.run { flow in
            let reply = try await flow.api.send(.post, "/api/admin/accounts", object: ["username": "ken"], token: flow.adminKey)
            let code = try #require(reply.json?["code"] as? String)
            let accountId = try #require(((reply.json?["account"] as? [String: Any])?["account"] as? [String: Any])?["id"] as? String)
            let recovery = RecoveryService(store: flow.application.store, configuration: TestServer.configuration(), now: { Date() })
            let issued = try await recovery.issue(accountId: accountId, lifetime: 3600, origin: .test)
            let restricted = try await recovery.exchange(code: issued.code, origin: .test)
            #expect(try await flow.addPasskey(token: restricted.token, with: SoftAuthenticator(store: InMemoryCredentialStore())).status == .created)
            #expect(try await flow.exchange(code).errorCode == "invalid_invitation")
        }
    }

    @Test("the username is promised: another invitation or account cannot take it, and a use finds it taken meanwhile refused")
    func usernamePromised() async throws {
        try await InvitationTestFlow.run(TestServer.configuration { $0.signUp = .open }) { flow in
            let code = try InvitationTestFlow.code(try await flow.invite(["username": "ada"]))
            let twice = try await flow.api.send(.post, "/api/admin/invites", object: ["username": "ada"], token: flow.adminKey)
            #expect(twice.status == .conflict && twice.errorCode == "username_taken", "\(twice.text)")
            // Someone signs up and takes the name before the invitation is used.
            let other = try await flow.api.register("Other Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            let renamed = try await flow.api.send(.patch, "/api/account", object: ["username": "ada"], token: other.token)
            #expect(renamed.status == .ok, "\(renamed.text)")
            let use = try await flow.exchange(code)
            #expect(use.status == .conflict && use.errorCode == "username_taken", "\(use.text)")
            #expect(try await flow.accountCount() == 1, "the refused use made nothing")
        }
    }

    @Test("the database holds no code and no restricted token in any form")
    func noCodeInTheDatabase() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-invitations-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("db.sqlite").path
        let configuration = TestServer.configuration {
            $0.database = .sqlite(path: path)
            $0.signUp = .invite
        }
        let found = NIOLockedValueBox<[String]>([])
        try await InvitationTestFlow.run(configuration) { flow in
            let issued = try await flow.invite(["username": "hedy"])
            let account = try await flow.api.send(.post, "/api/admin/accounts", object: ["username": "joan"], token: flow.adminKey)
            for code in [try InvitationTestFlow.code(issued), try #require(account.json?["code"] as? String)] {
                let session = try await flow.use(code)
                let compact = code.replacingOccurrences(of: "-", with: "")
                found.withLockedValue { $0 += [code, compact, String(compact.dropFirst(5)), session.token, String(session.token.dropFirst(4))] }
            }
            try await flow.application.store.truncateLog()
        }
        let secrets = found.withLockedValue { $0 }
        #expect(secrets.count == 10)
        var bytes = Data()
        for suffix in ["", "-wal"] { bytes += (try? Data(contentsOf: URL(fileURLWithPath: path + suffix))) ?? Data() }
        #expect(bytes.count > 0)
        for secret in secrets {
            #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) is in the database file")
            #expect(bytes.range(of: Data(secret.lowercased().utf8)) == nil, "\(secret) (lower case) is in the database file")
        }
    }
}
