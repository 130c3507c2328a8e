import Foundation
import HTTPTypes
import Testing
@testable import LatchkeyServer

/// The device authorization grant (RFC 8628) as `OIDCDeviceFlow` and the token endpoint answer it: the
/// device authorization endpoint's codes, the verification page's API for a signed-in person, and the
/// polling — `authorization_pending`, `slow_down` with the interval enforced and widened, `access_denied`,
/// `expired_token`, and the tokens exactly once. What anonymous callers can make is bounded per address.
@Suite("OpenID Connect: the device flow, in process")
struct OIDCDeviceFlowTests {
    static func run(clock: TestClock = TestClock(), _ body: @Sendable (OIDCTestFlow, TestClock) async throws -> Void) async throws {
        try await TestServer.withApplication(OIDCClientFactsTests.configuration(), now: { clock.now }) { (api, application) async throws in
            let key = try await OIDCClientFactsTests.adminKey(application.store)
            try await body(OIDCTestFlow(api: api, application: application, adminKey: key), clock)
        }
    }

    /// A public client allowed only the device flow (no redirect URI needed), as for a CLI.
    static func deviceClient(_ flow: OIDCTestFlow, grants: [String] = ["device_code"]) async throws -> OIDCTestFlow.Client {
        let reply = try await flow.api.send(.post, "/api/admin/clients", object: [
            "name": "Terminal", "public": true, "grantTypes": grants, "scopes": OIDCTestFlow.allScopes,
        ], token: flow.adminKey)
        try #require(reply.status == .created, "create client: \(reply.text)")
        let client = try #require(reply.json?["client"] as? [String: Any])
        #expect(client["grantTypes"] as? [String] == ["urn:ietf:params:oauth:grant-type:device_code"])
        return OIDCTestFlow.Client(id: try #require(client["id"] as? String), secret: nil)
    }

    static func start(_ flow: OIDCTestFlow, _ client: OIDCTestFlow.Client, scope: String = "openid profile offline_access") async throws -> APIClient.Reply {
        try await flow.api.send(
            .post, "/oidc/device", body: Data(OIDCTestFlow.form([("client_id", client.id), ("scope", scope)]).utf8),
            contentType: "application/x-www-form-urlencoded")
    }

    static func poll(_ flow: OIDCTestFlow, _ client: OIDCTestFlow.Client, _ deviceCode: String) async throws -> APIClient.Reply {
        try await flow.token([("grant_type", "urn:ietf:params:oauth:grant-type:device_code"), ("device_code", deviceCode)], client: client)
    }

    static func page(_ flow: OIDCTestFlow, _ code: String, allow: Bool? = nil, token: String?) async throws -> APIClient.Reply {
        var body: [String: Any] = ["userCode": code]
        if let allow { body["allow"] = allow }
        return try await flow.api.send(.post, "/api/oidc/device", object: body, token: token)
    }

    @Test("codes, the page's answers, polling with authorization_pending and slow_down, then the tokens once")
    func approved() async throws {
        try await Self.run { flow, clock in
            let client = try await Self.deviceClient(flow)
            let discovery = try await flow.api.send(.get, "/.well-known/openid-configuration")
            #expect(discovery.json?["device_authorization_endpoint"] as? String == flow.issuer + "/oidc/device")
            #expect((discovery.json?["grant_types_supported"] as? [String])?.contains("urn:ietf:params:oauth:grant-type:device_code") == true)

            let started = try await Self.start(flow, client)
            try #require(started.status == .ok, "device authorization: \(started.text)")
            #expect(started.headers[.cacheControl] == "no-store")
            let deviceCode = try #require(started.json?["device_code"] as? String)
            let userCode = try #require(started.json?["user_code"] as? String)
            #expect(userCode.range(of: #"^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$"#, options: .regularExpression) != nil, "\(userCode)")
            #expect(started.json?["verification_uri"] as? String == flow.issuer + "/device")
            #expect(started.json?["verification_uri_complete"] as? String == flow.issuer + "/device?user_code=" + userCode)
            #expect(started.json?["expires_in"] as? Int == 600 && started.json?["interval"] as? Int == 5)
            // Only digests are kept.
            let stored = try #require(try await flow.application.store.oidcDeviceCodes.code(userHash: SecretDigest.of(userCode.replacingOccurrences(of: "-", with: ""))))
            #expect(stored.deviceHash == SecretDigest.of(deviceCode))

            #expect(OIDCTestFlow.oauthError(try await Self.poll(flow, client, deviceCode)) == "authorization_pending")
            // Sooner than the interval: slow_down, and the interval is now 10 s.
            #expect(OIDCTestFlow.oauthError(try await Self.poll(flow, client, deviceCode)) == "slow_down")
            clock.advance(by: 6)
            #expect(OIDCTestFlow.oauthError(try await Self.poll(flow, client, deviceCode)) == "slow_down", "the widened interval (10 s) holds")
            // Now 15 s, from that last poll.
            clock.advance(by: 14)
            #expect(OIDCTestFlow.oauthError(try await Self.poll(flow, client, deviceCode)) == "slow_down")
            clock.advance(by: 21)
            #expect(OIDCTestFlow.oauthError(try await Self.poll(flow, client, deviceCode)) == "authorization_pending")

            // The page: nobody signed in is asked to; the person sees the app; the code in any case, without its hyphen.
            #expect(try await Self.page(flow, userCode, token: nil).status == .unauthorized)
            let person = try await flow.person()
            let typed = userCode.lowercased().replacingOccurrences(of: "-", with: "")
            let shown = try await Self.page(flow, typed, token: person.token)
            try #require(shown.status == .ok, "\(shown.text)")
            #expect((shown.json?["client"] as? [String: Any])?["name"] as? String == "Terminal")
            #expect(shown.json?["scopes"] as? [String] == ["openid", "profile", "offline_access"])
            #expect(shown.json?["approved"] == nil)
            let wrong = try await Self.page(flow, "BCDF-GHJK", token: person.token)
            #expect(wrong.status == .notFound && wrong.errorCode == "unknown_user_code", "\(wrong.text)")
            let allowed = try await Self.page(flow, userCode, allow: true, token: person.token)
            #expect(allowed.json?["approved"] as? Bool == true, "\(allowed.text)")
            let again = try await Self.page(flow, userCode, allow: false, token: person.token)
            #expect(again.errorCode == "unknown_user_code", "answered once: \(again.text)")

            // Another client's poll of this code changes nothing.
            let other = try await Self.deviceClient(flow)
            clock.advance(by: 21)
            #expect(OIDCTestFlow.oauthError(try await Self.poll(flow, other, deviceCode)) == "invalid_grant")
            let tokens = try flow.tokens(try await Self.poll(flow, client, deviceCode))
            let idToken = try OIDCTestFlow.claims(ofJWT: try #require(tokens["id_token"] as? String))
            #expect(idToken["sub"] as? String == person.accountId)
            #expect(idToken["aud"] as? String == client.id || idToken["aud"] as? [String] == [client.id])
            #expect(tokens["refresh_token"] is String, "offline_access gives a refresh token")
            #expect(try await flow.userInfo(try #require(tokens["access_token"] as? String)).status == .ok)
            // Once.
            clock.advance(by: 21)
            #expect(OIDCTestFlow.oauthError(try await Self.poll(flow, client, deviceCode)) == "invalid_grant")
            let refreshed = try await flow.refresh(try #require(tokens["refresh_token"] as? String), client: client)
            #expect(refreshed.status == .ok, "\(refreshed.text)")
        }
    }

    @Test("a refusal is access_denied; an expired code is expired_token; a client not allowed the grant or asking without openid is refused")
    func refusals() async throws {
        try await Self.run { flow, clock in
            let client = try await Self.deviceClient(flow)
            let person = try await flow.person()
            let first = try await Self.start(flow, client)
            let deviceCode = try #require(first.json?["device_code"] as? String)
            let userCode = try #require(first.json?["user_code"] as? String)
            #expect(try await Self.page(flow, userCode, allow: false, token: person.token).json?["approved"] as? Bool == false)
            #expect(OIDCTestFlow.oauthError(try await Self.poll(flow, client, deviceCode)) == "access_denied")
            clock.advance(by: 6)
            #expect(OIDCTestFlow.oauthError(try await Self.poll(flow, client, deviceCode)) == "invalid_grant", "gone after the refusal")

            let second = try await Self.start(flow, client)
            let late = try #require(second.json?["device_code"] as? String)
            clock.advance(by: OIDCDeviceFlow.lifetime + 1)
            #expect(OIDCTestFlow.oauthError(try await Self.poll(flow, client, late)) == "expired_token")
            #expect(try await Self.page(flow, try #require(second.json?["user_code"] as? String), token: person.token).errorCode == "unknown_user_code")

            #expect(OIDCTestFlow.oauthError(try await Self.start(flow, client, scope: "profile")) == "invalid_scope")
            let web = try await flow.client(public: true, redirectURIs: [OIDCTestFlow.native])
            #expect(OIDCTestFlow.oauthError(try await Self.start(flow, web)) == "unauthorized_client")
            let webPoll = try await Self.poll(flow, web, late)
            #expect(OIDCTestFlow.oauthError(webPoll) == "unauthorized_client")
        }
    }

    @Test("one address holds a bounded number of live codes; expired ones make room again")
    func bounded() async throws {
        try await Self.run { flow, clock in
            let client = try await Self.deviceClient(flow)
            for _ in 0..<OIDCDeviceFlow.perRequester {
                #expect(try await Self.start(flow, client).status == .ok)
            }
            let refused = try await Self.start(flow, client)
            #expect(refused.status == .tooManyRequests && OIDCTestFlow.oauthError(refused) == "slow_down", "\(refused.text)")
            clock.advance(by: OIDCDeviceFlow.lifetime + 1)
            #expect(try await Self.start(flow, client).status == .ok)
        }
    }

    @Test("user codes: 8 of the 20 consonants, normalized from what a person types")
    func userCodes() {
        for _ in 0..<200 {
            let code = OIDCDeviceFlow.userCode()
            #expect(code.count == 9 && code.filter { $0 != "-" }.allSatisfy(OIDCDeviceFlow.alphabet.contains))
            #expect(OIDCDeviceFlow.normalized(code.lowercased()) == code.replacingOccurrences(of: "-", with: ""))
        }
        #expect(OIDCDeviceFlow.normalized("bcdf ghjk") == "BCDFGHJK")
        #expect(OIDCDeviceFlow.normalized("ABCD-EFGH") == nil, "vowels are not in the alphabet")
        #expect(OIDCDeviceFlow.normalized("BCDF-GHJ") == nil)
        #expect(OIDCDeviceFlow.normalized(String(repeating: "B", count: 40)) == nil)
    }
}
