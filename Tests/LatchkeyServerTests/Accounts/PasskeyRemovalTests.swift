import Foundation
import HTTPTypes
import NIOCore
import SoftAuthenticator
import Testing
import WebAuthn
@testable import LatchkeyServer

/// What removing a passkey and signing out everywhere end.
@Suite("Removing a passkey and signing out everywhere")
struct PasskeyRemovalTests {
    @Test("removing a passkey ends the sessions it opened (but the caller's); sign out everywhere ends them all (SECURITY-FINDINGS.md, finding 15)")
    func sessionsFollowPasskeys() async throws {
        try await TestServer.run { api in
            let phone = SoftAuthenticator(store: InMemoryCredentialStore())
            let laptop = SoftAuthenticator(store: InMemoryCredentialStore())
            let first = try await api.register("Ada", with: phone)
            // A second passkey on the laptop; a session opened with each.
            let options = try api.creationOptions(try await api.send(.post, "/api/registration/options", object: ["name": "Laptop"], token: first.token))
            let added = try await api.send(.post, "/api/registration/verify", json: ["credential": try laptop.makeCredential(options, origin: TestServer.origin)], token: first.token)
            #expect(added.status == .created)
            let laptopSession = try #require(try await api.login(with: laptop).json?["token"] as? String)
            let phoneSession = try #require(try await api.login(with: phone).json?["token"] as? String)
            let passkeys = try #require(try await api.send(.get, "/api/account/passkeys", token: first.token).array)
            let laptopId = try #require(passkeys.first { $0["name"] as? String == "Laptop" }?["id"] as? String)
            // Removed from the phone's session: the laptop's session ends, the phone's go on.
            #expect(try await api.send(.delete, "/api/account/passkeys/\(laptopId)", token: phoneSession).status == .noContent)
            #expect(try await api.send(.get, "/api/account", token: laptopSession).status == .unauthorized)
            #expect(try await api.send(.get, "/api/account", token: phoneSession).status == .ok)
            #expect(try await api.send(.get, "/api/account", token: first.token).status == .ok)
            // Sign out everywhere.
            #expect(try await api.send(.post, "/api/logout/everywhere", token: phoneSession).status == .noContent)
            #expect(try await api.send(.get, "/api/account", token: phoneSession).status == .unauthorized)
            #expect(try await api.send(.get, "/api/account", token: first.token).status == .unauthorized)
            #expect(try await api.login(with: phone).status == .ok, "the passkey itself still works")
        }
    }
}
