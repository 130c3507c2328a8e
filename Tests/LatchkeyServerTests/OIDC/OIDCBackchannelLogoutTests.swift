import Foundation
import JWTKit
import LatchkeyAPI
import SoftAuthenticator
import Testing
@testable import LatchkeyServer

/// Back-Channel Logout 1.0 in process: a client with a `backchannelLogoutUri` (a `WebhookReceiver` on
/// 127.0.0.1, so the server allows private addresses, as the webhooks' tests do) gets a `sid` in its
/// id_token, and when the person's session ends — they log out, an operator revokes their sessions or
/// disables them — or they remove the app, a `logout_token` form POST whose JWT verifies against the
/// published JWKS and says what §2.4 requires. Tests/System/OIDC/test_backchannel_logout.py does the same with
/// the binary and two relying parties.
@Suite("OpenID Connect: back-channel logout, in process")
struct OIDCBackchannelLogoutTests {
    static func configuration() -> ServerConfiguration {
        var configuration = OIDCClientFactsTests.configuration()
        configuration.webhookAllowPrivate = true
        configuration.webhookRetryDelay = 1
        return configuration
    }

    /// A receiver, and a server whose OIDC flow can reach it.
    static func run(_ body: @Sendable (OIDCTestFlow, WebhookReceiver) async throws -> Void) async throws {
        let receiver = try await WebhookReceiver()
        do {
            try await TestServer.withApplication(configuration()) { api, application in
                let key = try await OIDCClientFactsTests.adminKey(application.store)
                try await body(OIDCTestFlow(api: api, application: application, adminKey: key), receiver)
            }
        } catch {
            try? await receiver.stop()
            throw error
        }
        try await receiver.stop()
    }

    /// A client whose back-channel logout URI is `receiver`'s.
    static func client(_ flow: OIDCTestFlow, _ receiver: WebhookReceiver) async throws -> OIDCTestFlow.Client {
        let client = try await flow.client()
        let reply = try await flow.api.send(
            .patch, "/api/admin/clients/\(client.id)", object: ["backchannelLogoutUri": receiver.url], token: flow.adminKey)
        try #require(reply.status == .ok, "\(reply.text)")
        #expect((reply.json?["client"] as? [String: Any])?["backchannelLogoutUri"] as? String == receiver.url, "\(reply.text)")
        return client
    }

    /// The id_token's `sid` after a sign-in of `person` to `client`.
    static func signIn(_ flow: OIDCTestFlow, _ person: APIClient.Session, _ client: OIDCTestFlow.Client) async throws -> String {
        let code = try await flow.code(for: person, client: client)
        let tokens = try flow.tokens(try await flow.exchange(code, client: client))
        let claims = try OIDCTestFlow.claims(ofJWT: try #require(tokens["id_token"] as? String))
        return try #require(claims["sid"] as? String, "no sid in \(claims)")
    }

    /// The logout tokens `receiver` holds, each checked against the JWKS and the form it came in.
    static func logoutTokens(_ flow: OIDCTestFlow, _ receiver: WebhookReceiver) async throws -> [OIDCLogoutTokenClaims] {
        let keys = JWTKeyCollection()
        let jwks = try await flow.api.send(.get, "/.well-known/jwks.json")
        try await keys.add(jwksJSON: jwks.text)
        var tokens: [OIDCLogoutTokenClaims] = []
        for delivery in receiver.accepted {
            #expect(delivery.headers["Content-Type"].first == "application/x-www-form-urlencoded")
            let form = String(decoding: delivery.body, as: UTF8.self)
            try #require(form.hasPrefix("logout_token="), "\(form)")
            let token = String(form.dropFirst("logout_token=".count))
            // The header read as a payload: the same base64url JSON.
            let parts = token.split(separator: ".", omittingEmptySubsequences: false)
            let header = try OIDCTestFlow.claims(ofJWT: "x.\(parts[0]).x")
            #expect(header["typ"] as? String == "logout+jwt")
            #expect(try OIDCTestFlow.claims(ofJWT: token)["nonce"] == nil)
            tokens.append(try await keys.verify(token, as: OIDCLogoutTokenClaims.self))
        }
        return tokens
    }

    @Test("the id_token carries a stable sid; logging out sends the client a signed logout token naming it, and removing the app one naming the person")
    func logoutAndRemoval() async throws {
        try await Self.run { flow, receiver in
            let client = try await Self.client(flow, receiver)
            let person = try await flow.person()
            let sid = try await Self.signIn(flow, person, client)
            #expect(try await Self.signIn(flow, person, client) == sid, "one session, one sid")
            #expect(sid != person.token && !person.token.contains(sid))

            #expect(try await flow.api.send(.delete, "/api/account/apps/\(client.id)", token: person.token).status == .noContent)
            try #require(try await eventually { receiver.accepted.count == 1 }, "no logout token for the app's removal")
            #expect(try await flow.api.send(.post, "/api/logout", token: person.token).status.code < 300)
            try #require(try await eventually { receiver.accepted.count == 2 }, "no logout token for the logout")

            let tokens = try await Self.logoutTokens(flow, receiver)
            for token in tokens {
                #expect(token.iss.value == flow.issuer && token.aud.value == [client.id] && token.sub?.value == person.accountId)
                #expect(token.events.keys.sorted() == [OIDCLogoutTokenClaims.event])
                #expect(abs(token.iat.value.timeIntervalSinceNow) < 60 && token.exp.value > Date())
            }
            #expect(tokens[0].sid == nil, "removing the app names the person only")
            #expect(tokens[1].sid == sid)
            #expect(Set(tokens.map(\.jti.value)).count == 2)
            #expect(try await flow.application.store.pendingOIDCLogoutCount() == 0)
        }
    }

    @Test("an operator's revocation and a disabled account send one each; a receiver that is down gets it once it is back")
    func operatorTriggersAndRetry() async throws {
        try await Self.run { flow, receiver in
            let client = try await Self.client(flow, receiver)
            let person = try await flow.person()
            let sid = try await Self.signIn(flow, person, client)
            receiver.setDown(true)
            #expect(try await flow.api.send(.delete, "/api/admin/accounts/\(person.accountId)/sessions", token: flow.adminKey).status.code < 300)
            try #require(try await eventually { receiver.refused >= 1 }, "not tried while down")
            #expect(try await flow.application.store.pendingOIDCLogoutCount() == 1, "kept for a retry")
            receiver.setDown(false)
            try #require(try await eventually { receiver.accepted.count == 1 }, "not delivered once back")

            let grace = try await flow.person("Grace Hopper")
            let graceSid = try await Self.signIn(flow, grace, client)
            #expect(graceSid != sid, "two sessions, two sids")
            #expect(try await flow.api.send(.post, "/api/admin/accounts/\(grace.accountId)/disable", token: flow.adminKey).status == .ok)
            try #require(try await eventually { receiver.accepted.count == 2 }, "no logout token for the disabled account")

            let tokens = try await Self.logoutTokens(flow, receiver)
            #expect(tokens[0].sid == sid && tokens[0].sub?.value == person.accountId)
            #expect(tokens[1].sid == graceSid && tokens[1].sub?.value == grace.accountId)
            #expect(try await flow.application.store.pendingOIDCLogoutCount() == 0)
        }
    }

    @Test("deleting the account, by the person or by an operator, sends each app a logout token naming the session and the person")
    func accountDeletion() async throws {
        try await Self.run { flow, receiver in
            let client = try await Self.client(flow, receiver)
            let person = try await flow.person()
            let sid = try await Self.signIn(flow, person, client)
            #expect(try await flow.api.send(.delete, "/api/account", token: person.token).status == .noContent)
            try #require(try await eventually { receiver.accepted.count == 1 }, "no logout token for the person's own deletion")

            // Grace gave the app access, then logged out: no session is left, so the token names her only.
            let grace = try await flow.person("Grace Hopper")
            _ = try await Self.signIn(flow, grace, client)
            #expect(try await flow.api.send(.post, "/api/logout", token: grace.token).status.code < 300)
            try #require(try await eventually { receiver.accepted.count == 2 }, "no logout token for the logout")
            #expect(try await flow.api.send(.delete, "/api/admin/accounts/\(grace.accountId)", token: flow.adminKey).status.code < 300)
            try #require(try await eventually { receiver.accepted.count == 3 }, "no logout token for the operator's deletion")

            let tokens = try await Self.logoutTokens(flow, receiver)
            #expect(tokens[0].sid == sid && tokens[0].sub?.value == person.accountId)
            #expect(tokens[2].sid == nil && tokens[2].sub?.value == grace.accountId, "the app is told to end every session of hers")
            #expect(tokens.allSatisfy { $0.aud.value == [client.id] })
            #expect(try await flow.application.store.pendingOIDCLogoutCount() == 0)
        }
    }

    @Test("removing a passkey ends the sessions it opened, and the apps they signed in to are told; the caller's own session is not named")
    func passkeyRemoval() async throws {
        try await Self.run { flow, receiver in
            let client = try await Self.client(flow, receiver)
            let phone = SoftAuthenticator(store: InMemoryCredentialStore())
            let laptop = SoftAuthenticator(store: InMemoryCredentialStore())
            let first = try await flow.api.register("Ada", with: phone)
            #expect(try await flow.api.addPasskey(with: first.token, from: laptop).status == .created)
            let laptopSession = try await flow.api.signIn(with: laptop)
            let laptopSid = try await Self.signIn(flow, laptopSession, client)
            let phoneSession = try await flow.api.signIn(with: phone)
            _ = try await Self.signIn(flow, phoneSession, client)
            let passkeys = try #require(try await flow.api.send(.get, "/api/account/passkeys", token: phoneSession.token).array)
            let laptopId = try #require(passkeys.last?["id"] as? String)
            #expect(try await flow.api.send(.delete, "/api/account/passkeys/\(laptopId)", token: phoneSession.token).status == .noContent)
            try #require(try await eventually { receiver.accepted.count == 1 }, "no logout token for the laptop's session")
            try await Task.sleep(for: .milliseconds(500))
            let tokens = try await Self.logoutTokens(flow, receiver)
            #expect(tokens.count == 1 && tokens[0].sid == laptopSid && tokens[0].sub?.value == first.accountId, "only the ended session")
        }
    }

    @Test("a passkey added through a recovery code ends the account's sessions (--recovery-ends-sessions), and their apps are told")
    func recoveryEndsSessions() async throws {
        try await Self.run { flow, receiver in
            let client = try await Self.client(flow, receiver)
            let person = try await flow.person()
            let sid = try await Self.signIn(flow, person, client)
            let recoveryKey = try await OIDCClientFactsTests.adminKey(flow.application.store, scope: .recovery)
            let issued = try await flow.api.send(.post, "/api/admin/accounts/\(person.accountId)/recovery", object: [:], token: recoveryKey)
            try #require(issued.status == .created, "\(issued.text)")
            let exchanged = try await flow.api.send(.post, "/api/recovery/exchange", object: ["code": try #require(issued.json?["code"] as? String)])
            let restricted = try #require(exchanged.json?["token"] as? String, "\(exchanged.text)")
            #expect(try await flow.api.addPasskey(with: restricted, from: SoftAuthenticator(store: InMemoryCredentialStore())).status == .created)
            #expect(try await flow.api.send(.get, "/api/account", token: person.token).status == .unauthorized, "the old session ended")
            try #require(try await eventually { receiver.accepted.count == 1 }, "no logout token for the recovery")
            let tokens = try await Self.logoutTokens(flow, receiver)
            #expect(tokens[0].sid == sid && tokens[0].sub?.value == person.accountId)
        }
    }

    @Test("a back-channel logout URI is https, or http on a loopback host, without fragment; anything else is 422 backchannel_logout_uri_invalid")
    func uriRules() async throws {
        for uri in ["ftp://rp.example/x", "http://rp.example/logout", "https://rp.example/logout#x", "com.example.app:/logout", "relative"] {
            #expect(throws: APIError.self, "\(uri)") { try OIDCClientRules.backchannelLogoutURI(uri) }
        }
        #expect(try OIDCClientRules.backchannelLogoutURI("https://rp.example/logout?x=1") == "https://rp.example/logout?x=1")
        #expect(try OIDCClientRules.backchannelLogoutURI("http://127.0.0.1:8080/bcl") != nil)
        #expect(try OIDCClientRules.backchannelLogoutURI("") == nil)
    }
}
