import Foundation
import HTTPTypes
import NIOCore
import SoftAuthenticator
import Testing
import WebAuthn
@testable import LatchkeyServer

/// Adding a passkey needs a recent passkey sign-in (a passkey outlives every session) and room on the
/// account (`maxPasskeysPerAccount`).
@Suite("Adding a passkey: a recent sign-in and room on the account")
struct AddPasskeyPolicyTests {
    @Test("adding a passkey needs a session from the last 10 minutes; an older one gets 403 recent_sign_in_required until a fresh login (SECURITY-FINDINGS-3.md, finding 11)")
    func addPasskeyNeedsRecentSignIn() async throws {
        let clock = TestClock()
        try await TestServer.run(now: { clock.now }) { api in
            let phone = SoftAuthenticator(store: InMemoryCredentialStore())
            let session = try await api.register("Ada", with: phone)
            #expect(try await api.send(.post, "/api/registration/options", object: [:], token: session.token).status == .ok)
            clock.advance(by: 10 * 60 + 1)
            let stale = try await api.send(.post, "/api/registration/options", object: [:], token: session.token)
            #expect(stale.status == .forbidden && stale.errorCode == "recent_sign_in_required", "\(stale.text)")
            #expect(try await api.send(.get, "/api/account", token: session.token).status == .ok, "the session itself still works")
            let login = try await api.login(with: phone)
            let fresh = try #require(login.json?["token"] as? String)
            #expect(try await api.send(.post, "/api/registration/options", object: [:], token: fresh).status == .ok)
        }
    }

    @Test("an account holds at most max-passkeys-per-account; past it add-passkey options are 409 too_many_passkeys (SECURITY-FINDINGS-3.md, findings 2 and 3)")
    func passkeyCap() async throws {
        let configuration = TestServer.configuration { $0.maxPasskeysPerAccount = 2 }
        try await TestServer.run(configuration) { api in
            let session = try await api.register("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            let options = try api.creationOptions(try await api.send(.post, "/api/registration/options", object: [:], token: session.token))
            let credential = try SoftAuthenticator(store: InMemoryCredentialStore()).makeCredential(options, origin: TestServer.origin)
            #expect(try await api.send(.post, "/api/registration/verify", json: ["credential": credential]).status == .forbidden,
                    "another account's ceremony, anonymously: wrong_account")
            let added = try await api.send(.post, "/api/registration/verify", body: try JSONEncoder().encode(["credential": credential]), token: session.token)
            #expect(added.status == .created, "\(added.text)")
            let full = try await api.send(.post, "/api/registration/options", object: [:], token: session.token)
            #expect(full.status == .conflict && full.errorCode == "too_many_passkeys", "\(full.text)")
        }
        var bad = TestServer.configuration()
        for value in [0, 10_001] {
            bad.maxPasskeysPerAccount = value
            #expect(throws: ServerConfiguration.Invalid.self) { try bad.validate() }
        }
    }
}
