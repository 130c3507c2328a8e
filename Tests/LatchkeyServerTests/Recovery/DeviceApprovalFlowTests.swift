import Foundation
import HTTPTypes
import SoftAuthenticator
import Testing
import WebAuthn
@testable import LatchkeyServer

/// Letting a new device in, the whole way in process (`DeviceApprovalService`), as
/// Tests/System/Recovery/test_device_approval.py drives the binary: the new device asks and polls with its
/// secret; the signed-in device finds the request by its code, sees the browser that asked, and approves
/// with a fresh, user-verified assertion of one of its own passkeys; the new device's poll gets a
/// restricted session once, which adds its passkey. `DeviceApprovalTests` has the owned requests and the
/// bound per address; this suite the rest of the flow and its refusals.
@Suite("Device approval, in process: the flow and its refusals")
struct DeviceApprovalFlowTests {
    static let iPhone = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1"

    struct Request {
        let id: String
        let code: String
        let secret: String
    }

    static func request(_ api: APIClient) async throws -> Request {
        let made = try await api.send(.post, "/api/device-requests", headers: [.userAgent: iPhone])
        try #require(made.status == .created, "\(made.text)")
        return Request(
            id: try #require(made.json?["id"] as? String), code: try #require(made.json?["code"] as? String),
            secret: try #require(made.json?["secret"] as? String))
    }

    static func poll(_ api: APIClient, _ request: Request, secret: String? = nil) async throws -> APIClient.Reply {
        try await api.send(.post, "/api/device-requests/\(request.id)/poll", object: ["secret": secret ?? request.secret])
    }

    /// An assertion for the confirm ceremony of `token`'s account, made by `authenticator`; `adjust`
    /// changes the options first (as a tampering client would).
    static func confirmation(
        _ api: APIClient, token: String, by authenticator: SoftAuthenticator,
        adjust: (inout PublicKeyCredentialRequestOptionsJSON) -> Void = { _ in }
    ) async throws -> AuthenticationResponseJSON {
        var options = try api.requestOptions(try await api.send(.post, "/api/account/confirm/options", body: Data("{}".utf8), token: token))
        #expect(options.userVerification == "required" && options.timeout == 60_000 && options.allowCredentials?.isEmpty == false)
        adjust(&options)
        return try authenticator.getAssertion(options, origin: TestServer.origin)
    }

    static func approve(_ api: APIClient, _ request: Request, with credential: AuthenticationResponseJSON, token: String) async throws -> APIClient.Reply {
        try await api.send(.post, "/api/account/device-requests/\(request.id)/approve", json: ["credential": credential], token: token)
    }

    @Test("an approved request gives the new device one restricted session, which adds its passkey; the approving device stays signed in")
    func approvedDeviceAddsPasskey() async throws {
        try await TestServer.withApplication { api, application in
            let ada = try await api.signUp("Ada")
            let request = try await Self.request(api)
            #expect(request.code.count == 9 && Array(request.code)[4] == "-")
            #expect(try await Self.poll(api, request).json?["status"] as? String == "pending")
            #expect(try await Self.poll(api, request, secret: String(repeating: "x", count: 43)).status == .notFound)

            let found = try await api.send(.post, "/api/account/device-requests/find", object: ["code": request.code.lowercased()], token: ada.token)
            #expect(found.status == .ok && found.json?["id"] as? String == request.id, "\(found.text)")
            #expect(found.json?["device"] as? String == "Safari on iPhone", "\(found.text)")

            let assertion = try await Self.confirmation(api, token: ada.token, by: ada.authenticator)
            let approved = try await Self.approve(api, request, with: assertion, token: ada.token)
            #expect(approved.status == .noContent, "\(approved.text)")
            let replayed = try await Self.approve(api, request, with: assertion, token: ada.token)
            #expect(replayed.status == .unauthorized || replayed.status == .notFound, "the assertion's challenge is used: \(replayed.text)")

            let answer = try await Self.poll(api, request)
            #expect(answer.json?["status"] as? String == "approved", "\(answer.text)")
            let restricted = try #require(answer.json?["token"] as? String)
            #expect(restricted.hasPrefix(SessionToken.recoveryPrefix))
            #expect((answer.json?["account"] as? [String: Any])?["id"] as? String == ada.accountId)
            #expect(try await Self.poll(api, request).json?["status"] as? String == "used", "the session is handed out once")
            #expect(try await api.send(.get, "/api/account", token: restricted).errorCode == "recovery_session_restricted")

            let newDevice = SoftAuthenticator(store: InMemoryCredentialStore())
            let added = try await api.addPasskey(with: restricted, from: newDevice)
            #expect(added.status == .created, "\(added.text)")
            #expect(try await api.send(.get, "/api/account", token: ada.token).status == .ok, "the approving device stays signed in")
            #expect(try await api.send(.post, "/api/registration/options", object: [:], token: restricted).status == .unauthorized)
            #expect(try await api.signIn(with: newDevice).accountId == ada.accountId)

            let key = try await OIDCClientFactsTests.adminKey(application.store, scope: .read)
            let trail = try await api.auditTrail(key: key, account: ada.accountId)
            let approval = try #require(trail.first { $0["event"] as? String == "device_request.approved" }, "\(trail)")
            #expect((approval["detail"] as? [String: Any])?["device"] as? String == "Safari on iPhone")
            #expect(trail.contains { $0["event"] as? String == "device_request.completed" })
        }
    }

    @Test("the confirmation must be a user-verified assertion of the caller's own passkey for the caller's own challenge; a denied request stays denied")
    func refusals() async throws {
        try await TestServer.run { api in
            let ada = try await api.signUp("Ada")
            let mallory = try await api.signUp("Mallory")
            let request = try await Self.request(api)

            // Mallory's passkey answering Ada's challenge.
            let foreign = try await Self.confirmation(api, token: ada.token, by: mallory.authenticator) { $0.allowCredentials = [] }
            let byForeign = try await Self.approve(api, request, with: foreign, token: ada.token)
            #expect(byForeign.status == .notFound && byForeign.errorCode == "unknown_credential", "\(byForeign.text)")
            // Mallory's own confirmation, presented on Ada's session: its challenge was sealed to Mallory.
            let hers = try await Self.confirmation(api, token: mallory.token, by: mallory.authenticator)
            let crossed = try await Self.approve(api, request, with: hers, token: ada.token)
            #expect(crossed.status == .unauthorized && crossed.errorCode == "unknown_challenge", "\(crossed.text)")
            // Ada's passkey without user verification, from a client that told it none was needed.
            var unverified = ada.authenticator
            unverified.userVerified = false
            let presence = try await Self.confirmation(api, token: ada.token, by: unverified) { $0.userVerification = "discouraged" }
            let present = try await Self.approve(api, request, with: presence, token: ada.token)
            #expect(present.status == .unauthorized && present.errorCode == "user_not_verified", "\(present.text)")
            #expect(try await Self.poll(api, request).json?["status"] as? String == "pending", "no refusal approved it")

            let denied = try await api.send(.post, "/api/account/device-requests/\(request.id)/deny", body: Data("{}".utf8), token: ada.token)
            #expect(denied.status == .noContent, "\(denied.text)")
            #expect(try await Self.poll(api, request).json?["status"] as? String == "denied")
            let late = try await Self.approve(api, request, with: try await Self.confirmation(api, token: ada.token, by: ada.authenticator), token: ada.token)
            #expect(late.status == .notFound && late.errorCode == "unknown_device_request", "\(late.text)")
            #expect(try await api.send(.post, "/api/account/device-requests/find", object: ["code": request.code], token: ada.token).status == .notFound)
            #expect(try await api.send(.post, "/api/account/device-requests/find", object: ["code": "!!"], token: ada.token).status == .notFound)
            #expect(try await api.send(.post, "/api/device-requests/nope/poll", object: ["secret": "x"]).status == .notFound)
        }
    }

    @Test("a request lives five minutes: then its poll says expired, its code finds nothing and it cannot be approved")
    func requestsExpire() async throws {
        let clock = TestClock()
        try await TestServer.run(now: { clock.now }) { api in
            let ada = try await api.signUp("Ada")
            let request = try await Self.request(api)
            clock.advance(by: DeviceApprovalService.lifetime + 1)
            #expect(try await Self.poll(api, request).json?["status"] as? String == "expired")
            let found = try await api.send(.post, "/api/account/device-requests/find", object: ["code": request.code], token: ada.token)
            #expect(found.status == .notFound && found.errorCode == "unknown_device_request", "\(found.text)")
            let late = try await Self.approve(api, request, with: try await Self.confirmation(api, token: ada.token, by: ada.authenticator), token: ada.token)
            #expect(late.status.code >= 400, "an expired request is not approved: \(late.text)")
            #expect(try await Self.poll(api, request).json?["status"] as? String == "expired")
        }
    }
}
