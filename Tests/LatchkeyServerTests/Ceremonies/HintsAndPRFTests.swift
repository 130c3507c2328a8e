import Foundation
import SoftAuthenticator
import Testing
import WebAuthn
@testable import LatchkeyServer

/// Hints and the credProps and prf extensions through the ceremonies (issue 32, items 3 and 4): what the
/// options carry as configured, what a registration records, and the PRF outputs of a real evaluation
/// (the software authenticator's hmac-secret) handed back with the session. (That they are kept nowhere
/// is `Tests/System/Policy/test_prf_and_hints.py`'s, which reads the database files and the log.)
@Suite("Hints, credProps and PRF")
struct HintsAndPRFTests {
    static let salt = Base64URL.encode(Array("the relying party's salt".utf8))

    @Test("the options carry the configured hints in order, credProps and prf at registration, and nothing unconfigured")
    func options() async throws {
        let configured = TestServer.configuration {
            $0.registrationHints = [.securityKey, .hybrid]
            $0.loginHints = [.clientDevice]
        }
        try await TestServer.run(configured) { api in
            let creation = try await api.send(.post, "/api/registration/options", object: ["displayName": "Ada"])
            let publicKey = try #require(creation.json?["publicKey"] as? [String: Any])
            #expect(publicKey["hints"] as? [String] == ["security-key", "hybrid"])
            let extensions = try #require(publicKey["extensions"] as? [String: Any])
            #expect(extensions["credProps"] as? Bool == true && (extensions["prf"] as? [String: Any])?.isEmpty == true, "\(extensions)")
            let request = try #require(try await api.send(.post, "/api/login/options").json?["publicKey"] as? [String: Any])
            #expect(request["hints"] as? [String] == ["client-device"])
            #expect(request["extensions"] == nil)
        }
        try await TestServer.run { api in
            let creation = try #require(try await api.send(.post, "/api/registration/options", object: ["displayName": "Ada"]).json?["publicKey"] as? [String: Any])
            #expect(creation["hints"] == nil)
            let request = try #require(try await api.send(.post, "/api/login/options").json?["publicKey"] as? [String: Any])
            #expect(Set(request.keys) == ["allowCredentials", "challenge", "rpId", "timeout", "userVerification"], "only what is configured")
        }
    }

    @Test("a registration records discoverable and PRF as the client said; a login evaluates the configured salt, or the client's, and the outputs come back")
    func recordedAndRelayed() async throws {
        try await TestServer.run(TestServer.configuration { $0.prfSalt = Self.salt }) { api in
            let phone = SoftAuthenticator(store: InMemoryCredentialStore())
            let session = try await api.register("Ada", with: phone)
            let passkeys = try #require(try await api.send(.get, "/api/account/passkeys", token: session.token).array)
            #expect(passkeys.first?["discoverable"] as? Bool == true && passkeys.first?["prfEnabled"] as? Bool == true, "\(passkeys)")

            let options = try api.requestOptions(try await api.send(.post, "/api/login/options"))
            #expect(options.extensions?.prf == PRFInputsJSON(eval: PRFValuesJSON(first: Self.salt)))
            let assertion = try phone.getAssertion(options, origin: TestServer.origin)
            let outputs = try #require(assertion.clientExtensionResults.prf?.results)
            let login = try await api.send(.post, "/api/login/verify", json: ["credential": assertion])
            #expect(login.status == .ok)
            let relayed = try #require(login.json?["prf"] as? [String: Any])
            #expect(relayed["first"] as? String == outputs.first && relayed["second"] == nil)

            // The client's own inputs instead: the same first output for the same salt, and a second.
            let own = try api.requestOptions(try await api.send(.post, "/api/login/options", object: [
                "prf": ["eval": ["first": Self.salt, "second": Base64URL.encode(Array("another".utf8))]],
            ]))
            let again = try phone.getAssertion(own, origin: TestServer.origin)
            let answer = try #require(try await api.send(.post, "/api/login/verify", json: ["credential": again]).json?["prf"] as? [String: Any])
            #expect(answer["first"] as? String == outputs.first)
            #expect((answer["second"] as? String).flatMap(Base64URL.decode)?.count == 32 && answer["second"] as? String != outputs.first)

            // A passkey made without prf (another client) is recorded as unable; its login brings nothing back.
            var plainOptions = try api.creationOptions(try await api.send(.post, "/api/registration/options", object: [:], token: session.token))
            plainOptions.extensions?.prf = nil
            let laptop = SoftAuthenticator(store: InMemoryCredentialStore())
            var made = try laptop.makeCredential(plainOptions, origin: TestServer.origin)
            made.clientExtensionResults.prf = ClientExtensionResultsJSON.PRFOutputs(enabled: false)
            let added = try await api.send(.post, "/api/registration/verify", json: ["credential": made], token: session.token)
            #expect(added.status == .created)
            #expect((added.json?["passkey"] as? [String: Any])?["prfEnabled"] as? Bool == false)
            let plainLogin = try await api.send(.post, "/api/login/verify", json: ["credential": try await api.loginResponse(with: laptop)])
            #expect(plainLogin.status == .ok && plainLogin.json?["prf"] == nil, "\(plainLogin.text)")
        }
    }
}
