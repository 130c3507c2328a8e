import Foundation
import SoftAuthenticator
import Testing
import WebAuthn
@testable import LatchkeyServer

/// `recoveryRisk` in `GET /api/account` (issue 30, item 5): the account view's warning that losing a
/// device would need the operator's help.
@Suite("The account's recovery risk")
struct RecoveryRiskTests {
    static func authenticator(_ style: SoftAuthenticator.BackupStyle) -> SoftAuthenticator {
        SoftAuthenticator(store: InMemoryCredentialStore(), backupStyle: style)
    }

    /// Adds a passkey from `authenticator` to the session's account; returns its id.
    static func addPasskey(_ api: APIClient, _ session: APIClient.Session, from authenticator: SoftAuthenticator) async throws -> String {
        let options = try api.creationOptions(try await api.send(.post, "/api/registration/options", object: [:], token: session.token))
        let added = try await api.send(
            .post, "/api/registration/verify", json: ["credential": try authenticator.makeCredential(options, origin: TestServer.origin)],
            token: session.token)
        try #require(added.status == .created, "add: \(added.text)")
        return try #require((added.json?["passkey"] as? [String: Any])?["id"] as? String)
    }

    /// The account's `recoveryRisk`: its text, or nil for JSON null (a missing member fails the test).
    static func risk(_ api: APIClient, _ session: APIClient.Session) async throws -> String? {
        let account = try #require(try await api.send(.get, "/api/account", token: session.token).json)
        let risk = try #require(account["recoveryRisk"], "recoveryRisk is always present, null when there is none")
        if risk is NSNull { return nil }
        return try #require(risk as? String)
    }

    @Test("one passkey: single_passkey; a second synced one: none; removing it: single_passkey again")
    func singlePasskey() async throws {
        try await TestServer.run { api in
            let session = try await api.register("Ada", with: Self.authenticator(.synced))
            #expect(try await Self.risk(api, session) == "single_passkey")
            let second = try await Self.addPasskey(api, session, from: Self.authenticator(.synced))
            #expect(try await Self.risk(api, session) == nil)
            #expect(try await api.send(.delete, "/api/account/passkeys/\(second)", token: session.token).status == .noContent)
            #expect(try await Self.risk(api, session) == "single_passkey")
        }
    }

    @Test("one device-bound passkey is single_passkey; only device-bound ones are device_bound_only until one can sync")
    func deviceBoundOnly() async throws {
        try await TestServer.run { api in
            let session = try await api.register("Grace", with: Self.authenticator(.deviceBound))
            #expect(try await Self.risk(api, session) == "single_passkey", "one passkey is the first thing to say")
            _ = try await Self.addPasskey(api, session, from: Self.authenticator(.deviceBound))
            #expect(try await Self.risk(api, session) == "device_bound_only")
            let synced = try await Self.addPasskey(api, session, from: Self.authenticator(.synced))
            #expect(try await Self.risk(api, session) == nil)
            #expect(try await api.send(.delete, "/api/account/passkeys/\(synced)", token: session.token).status == .noContent)
            #expect(try await Self.risk(api, session) == "device_bound_only")
        }
    }

    @Test("backup eligibility counts, not the backup state: a synced passkey whose sync is paused still lifts the risk")
    func eligibilityNotState() async throws {
        try await TestServer.run { api in
            let session = try await api.register("Lin", with: Self.authenticator(.deviceBound))
            var paused = Self.authenticator(.synced)
            _ = try await Self.addPasskey(api, session, from: paused)
            paused.syncPaused = true
            #expect(try await api.login(with: paused).status == .ok)
            let passkeys = try #require(try await api.send(.get, "/api/account/passkeys", token: session.token).array)
            #expect(passkeys.contains { $0["backupEligible"] as? Bool == true && $0["backedUp"] as? Bool == false })
            #expect(try await Self.risk(api, session) == nil)
        }
    }

    @Test("GET and PATCH /api/account have it (PATCH answers what GET does); sign-up and login answer the account as before")
    func otherAnswersUnchanged() async throws {
        try await TestServer.run { api in
            let phone = Self.authenticator(.synced)
            let options = try api.creationOptions(try await api.send(.post, "/api/registration/options", object: ["displayName": "Ada"]))
            let signedUp = try await api.send(.post, "/api/registration/verify", json: ["credential": try phone.makeCredential(options, origin: TestServer.origin)])
            let keys: Set<String> = ["id", "displayName", "credo", "createdAt", "userHandle"]
            #expect(Set(try #require(signedUp.json?["account"] as? [String: Any]).keys) == keys)
            let login = try await api.login(with: phone)
            #expect(Set(try #require(login.json?["account"] as? [String: Any]).keys) == keys)
            let token = try #require(login.json?["token"] as? String)
            let patched = try await api.send(.patch, "/api/account", object: ["credo": "Onwards.", "username": "ada"], token: token)
            let account = try await api.send(.get, "/api/account", token: token)
            // And what apps learn about the person (OpenID Connect): GET has it, and PATCH answers the same shape.
            let details = keys.union(["recoveryRisk", "username", "email", "emailVerified", "groups"])
            #expect(Set(try #require(account.json).keys) == details)
            #expect(Set(try #require(patched.json).keys) == details, "PATCH answers what GET does: \(patched.text)")
            #expect(patched.json?["username"] as? String == "ada" && patched.json?["credo"] as? String == "Onwards.")
            #expect(patched.text == account.text, "the same account, as it is after the change")
        }
    }
}
