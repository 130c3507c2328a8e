import Foundation
import SoftAuthenticator
import Testing
import WebAuthn
@testable import LatchkeyServer

@Suite("The user's journey")
struct JourneyTests {
    @Test("register → account → update → logout → login → second passkey → rename/delete → delete account")
    func journey() async throws {
        try await TestServer.run { api in
            let phone = SoftAuthenticator(store: InMemoryCredentialStore())
            let laptop = SoftAuthenticator(store: InMemoryCredentialStore(), backupStyle: .deviceBound)

            // Register: a new account, logged in at once.
            let session = try await api.register("Ada Lovelace", with: phone)
            var reply = try await api.send(.get, "/api/account", token: session.token)
            #expect(reply.status == .ok)
            #expect(reply.json?["displayName"] as? String == "Ada Lovelace")
            #expect(reply.json?["credo"] as? String == "")

            // Update display name and credo.
            reply = try await api.send(.patch, "/api/account", object: ["displayName": "Ada", "credo": "Imagination is the discovery faculty."], token: session.token)
            #expect(reply.status == .ok)
            #expect(reply.json?["credo"] as? String == "Imagination is the discovery faculty.")

            // Log out: the token stops working.
            #expect(try await api.send(.post, "/api/logout", token: session.token).status == .noContent)
            reply = try await api.send(.get, "/api/account", token: session.token)
            #expect(reply.status == .unauthorized)
            #expect(reply.errorCode == "not_authenticated")

            // Log in again with the passkey.
            reply = try await api.login(with: phone)
            #expect(reply.status == .ok, "\(reply.text)")
            let token = try #require(reply.json?["token"] as? String)
            #expect((reply.json?["account"] as? [String: Any])?["displayName"] as? String == "Ada")
            #expect(reply.headers[.setCookie]?.contains("HttpOnly; SameSite=Strict") == true)

            // Add a second passkey, from another authenticator; excludeCredentials lists the first.
            let options = try api.creationOptions(try await api.send(.post, "/api/registration/options", object: ["name": "Laptop"], token: token))
            #expect(options.excludeCredentials?.count == 1)
            let credential = try laptop.makeCredential(options, origin: TestServer.origin)
            reply = try await api.send(.post, "/api/registration/verify", json: ["credential": credential], token: token)
            #expect(reply.status == .created, "\(reply.text)")
            #expect((reply.json?["passkey"] as? [String: Any])?["name"] as? String == "Laptop")

            // Log in with it.
            reply = try await api.login(with: laptop)
            #expect(reply.status == .ok)
            #expect((reply.json?["account"] as? [String: Any])?["id"] as? String == session.accountId)

            // List, rename, delete one; the last one cannot be deleted.
            reply = try await api.send(.get, "/api/account/passkeys", token: token)
            let passkeys = try #require(reply.array)
            #expect(passkeys.count == 2)
            let laptopId = try #require(passkeys.first { $0["name"] as? String == "Laptop" }?["id"] as? String)
            let phoneId = try #require(passkeys.first { $0["name"] as? String != "Laptop" }?["id"] as? String)
            #expect(passkeys.first { $0["id"] as? String == laptopId }?["backedUp"] as? Bool == false)
            reply = try await api.send(.patch, "/api/account/passkeys/\(laptopId)", object: ["name": "Work laptop"], token: token)
            #expect(reply.json?["name"] as? String == "Work laptop")
            #expect(try await api.send(.delete, "/api/account/passkeys/\(laptopId)", token: token).status == .noContent)
            reply = try await api.send(.delete, "/api/account/passkeys/\(phoneId)", token: token)
            #expect(reply.status == .conflict)
            #expect(reply.errorCode == "last_passkey")
            // The deleted passkey no longer logs in.
            reply = try await api.login(with: laptop)
            #expect(reply.status == .notFound)
            #expect(reply.errorCode == "unknown_credential")

            // Delete the account: its token, its passkeys and its login are refused.
            #expect(try await api.send(.delete, "/api/account", token: token).status == .noContent)
            #expect(try await api.send(.get, "/api/account", token: token).status == .unauthorized)
            reply = try await api.login(with: phone)
            #expect(reply.status == .notFound)
            #expect(reply.errorCode == "unknown_credential")
        }
    }

    @Test("well-known files and health")
    func wellKnown() async throws {
        try await TestServer.run(TestServer.configuration { $0.appleAppIds = ["ABCDE12345.com.example.app"] }) { api in
            let aasa = try await api.send(.get, "/.well-known/apple-app-site-association")
            #expect(((aasa.json?["webcredentials"] as? [String: Any])?["apps"] as? [String]) == ["ABCDE12345.com.example.app"])
            let related = try await api.send(.get, "/.well-known/webauthn")
            #expect(related.json?["origins"] as? [String] == [TestServer.origin])
            #expect(try await api.send(.get, "/healthz").status == .ok)
        }
    }

    @Test("/metrics counts ceremonies started, succeeded and failed by reason, in Prometheus text")
    func metrics() async throws {
        try await TestServer.run { api in
            let phone = SoftAuthenticator(store: InMemoryCredentialStore())
            _ = try await api.register("Ada", with: phone)
            #expect(try await api.login(with: phone).status == .ok)
            let replay = try await api.loginResponse(with: phone)
            _ = try await api.send(.post, "/api/login/verify", json: ["credential": replay])
            _ = try await api.send(.post, "/api/login/verify", json: ["credential": replay])
            let text = try await api.send(.get, "/metrics").text
            #expect(text.contains(#"latchkey_ceremonies_succeeded_total{ceremony="registration"} 1"#), "\(text)")
            #expect(text.contains(#"latchkey_ceremonies_started_total{ceremony="login"} 2"#))
            #expect(text.contains(#"latchkey_ceremonies_failed_total{ceremony="login",reason="unknown_challenge"} 1"#))
        }
    }
}
