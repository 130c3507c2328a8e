import Crypto
import Foundation
import Testing
import WebAuthn
@testable import SoftAuthenticator

/// The prf extension as the software authenticator gives it (CTAP2 hmac-secret underneath, WebAuthn L3
/// §10.1.4's salt derivation on top): a secret per credential, made when asked for, kept in the store;
/// an output is a function of the credential and the input alone.
@Suite("SoftAuthenticator PRF")
struct PRFTests {
    typealias R = RoundTripTests

    static func creationOptions(prf: PRFInputsJSON?, userHandle: [UInt8] = Array("account-1".utf8)) -> PublicKeyCredentialCreationOptionsJSON {
        var options = R.creationOptions(algorithms: [-7], challenge: R.challenge(), userHandle: userHandle)
        options.extensions = ExtensionInputsJSON(credProps: true, prf: prf)
        return options
    }

    static func login(
        _ authenticator: SoftAuthenticator, eval: PRFValuesJSON? = nil, byCredential: [String: PRFValuesJSON]? = nil, allow: [String] = []
    ) throws -> AuthenticationResponseJSON {
        var options = R.requestOptions(challenge: R.challenge(), allow: allow)
        options.extensions = ExtensionInputsJSON(prf: PRFInputsJSON(eval: eval, evalByCredential: byCredential))
        return try authenticator.getAssertion(options, origin: R.origin)
    }

    static func salt(_ text: String) -> String { Base64URL.encode(Array(text.utf8)) }

    /// L3 §10.1.4 and CTAP2 hmac-secret, computed here independently of `PRFEvaluation`.
    static func expected(secret: String?, input: String) throws -> String {
        let key = try #require(secret.flatMap(Base64URL.decode))
        var salt = Array("WebAuthn PRF".utf8)
        salt.append(0)
        salt += Array(input.utf8)
        let hashed = Data(SHA256.hash(data: salt))
        return Base64URL.encode(Array(HMAC<SHA256>.authenticationCode(for: hashed, using: SymmetricKey(data: key))))
    }

    @Test("prf at creation: enabled, and a 32-byte secret kept with the credential; without it, none")
    func enabledAtCreation() async throws {
        let authenticator = SoftAuthenticator(store: InMemoryCredentialStore(), attestationMode: .none)
        var options = Self.creationOptions(prf: PRFInputsJSON())
        let challenge = R.challenge()
        options.challenge = Base64URL.encode(challenge)
        let made = try authenticator.makeCredential(options, origin: R.origin)
        #expect(made.clientExtensionResults.prf == ClientExtensionResultsJSON.PRFOutputs(enabled: true))
        #expect(made.clientExtensionResults.credProps?.rk == true)
        let plain = try authenticator.makeCredential(Self.creationOptions(prf: nil, userHandle: [2]), origin: R.origin)
        #expect(plain.clientExtensionResults.prf == nil)
        let stored = try authenticator.passkeys()
        #expect(stored.first { $0.credentialId == made.id }?.prfSecret.flatMap(Base64URL.decode)?.count == 32)
        #expect(stored.first { $0.credentialId == plain.id }?.prfSecret == nil)
        // The verifier reports what the client said.
        let registration = try await RegistrationVerifier(relyingParty: R.relyingParty).verify(made, expectedChallenge: challenge)
        #expect(registration.prfEnabled == true && registration.residentKey == true)
    }

    @Test("an output is HMAC-SHA256(secret, SHA-256(\"WebAuthn PRF\" ‖ 0 ‖ input)): the same for the same credential and input, another for another")
    func determinism() throws {
        let authenticator = SoftAuthenticator(store: InMemoryCredentialStore(), attestationMode: .none)
        let first = try authenticator.makeCredential(Self.creationOptions(prf: PRFInputsJSON(), userHandle: [1]), origin: R.origin)
        let second = try authenticator.makeCredential(Self.creationOptions(prf: PRFInputsJSON(), userHandle: [2]), origin: R.origin)
        let secrets = Dictionary(uniqueKeysWithValues: try authenticator.passkeys().map { ($0.credentialId, $0.prfSecret) })

        let one = try Self.login(authenticator, eval: PRFValuesJSON(first: Self.salt("one"), second: Self.salt("two")), allow: [first.id])
        let results = try #require(one.clientExtensionResults.prf?.results)
        #expect(results.first == (try Self.expected(secret: secrets[first.id] ?? nil, input: "one")))
        #expect(results.second == (try Self.expected(secret: secrets[first.id] ?? nil, input: "two")))
        #expect(results.first != results.second)

        let again = try Self.login(authenticator, eval: PRFValuesJSON(first: Self.salt("one")), allow: [first.id])
        #expect(again.clientExtensionResults.prf?.results == PRFValuesJSON(first: results.first), "same credential, same input: same output, and no second unasked")
        let other = try Self.login(authenticator, eval: PRFValuesJSON(first: Self.salt("one")), allow: [second.id])
        let otherFirst = try #require(other.clientExtensionResults.prf?.results?.first)
        #expect(otherFirst != results.first, "another credential: another output")
        #expect(otherFirst == (try Self.expected(secret: secrets[second.id] ?? nil, input: "one")))
        #expect(Base64URL.decode(otherFirst)?.count == 32)
    }

    @Test("evalByCredential: the named credential's own salts win over eval; it needs allowCredentials naming it")
    func byCredential() throws {
        let authenticator = SoftAuthenticator(store: InMemoryCredentialStore(), attestationMode: .none)
        let made = try authenticator.makeCredential(Self.creationOptions(prf: PRFInputsJSON()), origin: R.origin)
        let secret = try authenticator.passkeys().first?.prfSecret
        let chosen = try Self.login(
            authenticator, eval: PRFValuesJSON(first: Self.salt("general")), byCredential: [made.id: PRFValuesJSON(first: Self.salt("mine"))],
            allow: [made.id])
        #expect(chosen.clientExtensionResults.prf?.results?.first == (try Self.expected(secret: secret, input: "mine")))
        #expect(throws: SoftAuthenticatorError.self, "evalByCredential without allowCredentials") {
            try Self.login(authenticator, byCredential: [made.id: PRFValuesJSON(first: Self.salt("mine"))])
        }
        #expect(throws: SoftAuthenticatorError.self, "a key that allowCredentials does not name") {
            try Self.login(authenticator, byCredential: [Base64URL.encode([1, 2, 3]): PRFValuesJSON(first: Self.salt("x"))], allow: [made.id])
        }
        #expect(throws: SoftAuthenticatorError.self, "evalByCredential when creating") {
            try authenticator.makeCredential(
                Self.creationOptions(prf: PRFInputsJSON(evalByCredential: [made.id: PRFValuesJSON(first: Self.salt("x"))]), userHandle: [3]),
                origin: R.origin)
        }
    }

    @Test("a passkey made without prf answers an empty prf output; a login without inputs, none at all")
    func withoutSecret() throws {
        let authenticator = SoftAuthenticator(store: InMemoryCredentialStore(), attestationMode: .none)
        _ = try authenticator.makeCredential(Self.creationOptions(prf: nil), origin: R.origin)
        let asked = try Self.login(authenticator, eval: PRFValuesJSON(first: Self.salt("one")))
        #expect(asked.clientExtensionResults.prf == ClientExtensionResultsJSON.PRFOutputs())
        let plain = try authenticator.getAssertion(R.requestOptions(challenge: R.challenge()), origin: R.origin)
        #expect(plain.clientExtensionResults.prf == nil)
    }

    @Test("the secret round-trips through the file store: the outputs stay the same across runs; an older file without it loads")
    func fileStore() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-prf-\(UUID().uuidString)/authenticator.json")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let before = SoftAuthenticator(store: FileCredentialStore(url: url), attestationMode: .none)
        _ = try before.makeCredential(Self.creationOptions(prf: PRFInputsJSON()), origin: R.origin)
        let output = try Self.login(before, eval: PRFValuesJSON(first: Self.salt("one"))).clientExtensionResults.prf?.results
        let reloaded = try FileCredentialStore(url: url).load()
        #expect(reloaded.passkeys.first?.prfSecret == (try before.passkeys().first?.prfSecret))
        let after = SoftAuthenticator(store: FileCredentialStore(url: url), attestationMode: .none)
        #expect(try Self.login(after, eval: PRFValuesJSON(first: Self.salt("one"))).clientExtensionResults.prf?.results == output)

        // A store written before prf: no prfSecret member at all.
        var contents = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as? [String: Any])
        var state = try #require(contents["state"] as? [String: Any])
        var passkeys = try #require(state["passkeys"] as? [[String: Any]])
        passkeys[0].removeValue(forKey: "prfSecret")
        state["passkeys"] = passkeys
        contents["state"] = state
        try JSONSerialization.data(withJSONObject: contents).write(to: url)
        let old = try FileCredentialStore(url: url).load()
        #expect(old.passkeys.count == 1 && old.passkeys[0].prfSecret == nil)
    }
}
