import Foundation
import HTTPTypes
import NIOConcurrencyHelpers
import SoftAuthenticator
import Testing
import WebAuthn
@testable import LatchkeyServer

/// The sign-up policy (`--signup`, issue 43) against every way in: Latchkey's own registration (which the
/// page uses), PassKeysDemo's and Hanko's. `open` registers; `invite` and `closed` refuse with 403
/// `signup_closed` — at the options, and again at the finish of options another instance sealed under
/// `open` — while an invitation still makes an account under `invite`.
@Suite("Sign-up policy: every way in obeys it")
struct SignUpPolicyTests {
    /// One way in: a whole registration of a new account, as its client does it; the options' reply, and
    /// the finish's when the options were given.
    struct WayIn: Sendable, CustomStringConvertible {
        let description: String
        let options: @Sendable (APIClient) async throws -> APIClient.Reply
        let finish: @Sendable (APIClient, RegistrationResponseJSON) async throws -> APIClient.Reply
        /// The status a completed registration answers with.
        let created: HTTPResponse.Status

        /// Options, a credential, the finish: the finish's reply, or the options' when they were refused.
        func register(_ api: APIClient, finishingOn other: APIClient? = nil) async throws -> APIClient.Reply {
            let reply = try await options(api)
            guard reply.status == .ok else { return reply }
            let credential = try SoftAuthenticator(store: InMemoryCredentialStore()).makeCredential(try api.creationOptions(reply), origin: TestServer.origin)
            return try await finish(other ?? api, credential)
        }
    }

    static let api = WayIn(
        description: "Latchkey's API (the page's)",
        options: { try await $0.send(.post, "/api/registration/options", object: ["displayName": "Ada"]) },
        finish: { try await $0.send(.post, "/api/registration/verify", json: ["credential": $1]) }, created: .created)

    /// PassKeysDemo's two phases: a GET for the options, the attestation in standard base64.
    static let passKeysDemo = WayIn(
        description: "PassKeysDemo",
        options: { try await $0.send(.get, "/pkd/index.php?operation=create&userId=U-1&displayName=Ada") },
        finish: { api, credential in
            let body = [
                "clientDataJSON": standardBase64(credential.response.clientDataJSON),
                "attestationObject": standardBase64(credential.response.attestationObject),
            ]
            return try await api.send(.post, "/pkd/index.php?operation=create", object: body)
        }, created: .ok)

    /// Hanko's demo: the options by GET, the L3 JSON as the app posts it.
    static let hanko = WayIn(
        description: "Hanko",
        options: { try await $0.send(.get, "/registration_initialize?user_name=ada") },
        finish: { try await $0.send(.post, "/registration_finalize", json: $1) }, created: .ok)

    static let waysIn = [api, passKeysDemo, hanko]

    static func standardBase64(_ text: String) -> String {
        Data(Base64URL.decode(text) ?? []).base64EncodedString()
    }

    static func configuration(_ policy: SignUpPolicy?, oidc: Bool = false) -> ServerConfiguration {
        TestServer.configuration {
            $0.signUp = policy
            $0.oidc = oidc
            $0.compatibility = [.passKeysDemo, .hanko]
        }
    }

    /// The refusal, in Latchkey's shape or (the compatibility APIs) theirs, `{"error": sentence, "code": …}`.
    static func isRefusal(_ reply: APIClient.Reply) -> Bool {
        reply.status == .forbidden && (reply.errorCode == "signup_closed" || reply.json?["code"] as? String == "signup_closed")
    }

    @Test("open registers through every way in", arguments: waysIn)
    func open(way: WayIn) async throws {
        try await TestServer.run(Self.configuration(.open)) { api in
            let reply = try await way.register(api)
            #expect(reply.status == way.created, "\(way): \(reply.text)")
            #expect(try await api.send(.get, "/api/signup").json?["policy"] as? String == "open")
        }
    }

    @Test("invite and closed refuse every way in with 403 signup_closed", arguments: [SignUpPolicy.invite, .closed], waysIn)
    func refused(policy: SignUpPolicy, way: WayIn) async throws {
        try await TestServer.withApplication(Self.configuration(policy)) { (api, application) async throws in
            // Refused at the first step: no options for a ceremony that could not finish.
            let options = try await way.options(api)
            #expect(Self.isRefusal(options), "\(policy) \(way): \(options.text)")
            let count = try await application.store.connections.withConnection { db in
                try await db.raw("SELECT count(*) AS n FROM accounts").first()?.decode(column: "n", as: Int.self)
            }
            #expect(count == 0)
            #expect(try await api.send(.get, "/api/signup").json?["policy"] as? String == policy.rawValue)
        }
    }

    @Test("the default: open without OpenID Connect, invite with it; a setting wins over both")
    func defaults() async throws {
        #expect(Self.configuration(nil).effectiveSignUp == .open)
        #expect(Self.configuration(nil, oidc: true).effectiveSignUp == .invite)
        #expect(Self.configuration(.open, oidc: true).effectiveSignUp == .open)
        #expect(Self.configuration(.closed).effectiveSignUp == .closed)
        try await TestServer.run(Self.configuration(nil, oidc: true)) { api in
            for way in Self.waysIn {
                let reply = try await way.register(api)
                #expect(Self.isRefusal(reply), "--oidc without --signup, \(way): \(reply.text)")
            }
        }
    }

    @Test("a finish is refused under invite even for options sealed under open (another instance on the same database)", arguments: waysIn)
    func finishChecksAgain(way: WayIn) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-signup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var open = Self.configuration(.open)
        open.database = .sqlite(path: directory.appendingPathComponent("db.sqlite").path)
        var invite = open
        invite.signUp = .invite
        try await TestServer.run(open) { [invite] openInstance in
            try await TestServer.run(invite) { inviteInstance in
                let reply = try await way.register(openInstance, finishingOn: inviteInstance)
                #expect(Self.isRefusal(reply), "\(way): \(reply.text)")
                // The same options finished where sign-up is open register.
                let again = try await way.register(openInstance)
                #expect(again.status == way.created, "\(way): \(again.text)")
            }
        }
    }

    @Test("under invite, an invitation still makes an account; under closed, only an operator's account's does")
    func invitationsUnderPolicies() async throws {
        try await InvitationTestFlow.run(Self.configuration(.invite)) { flow in
            let session = try await flow.use(try InvitationTestFlow.code(try await flow.invite()))
            #expect(try await flow.addPasskey(token: session.token, with: SoftAuthenticator(store: InMemoryCredentialStore())).status == .created)
        }
        // An invitation for new people made while sign-up was open is refused once it is closed.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-signup-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let made = NIOLockedValueBox("")
        var open = Self.configuration(.open)
        open.database = .sqlite(path: directory.appendingPathComponent("db.sqlite").path)
        try await InvitationTestFlow.run(open) { flow in
            let code = try InvitationTestFlow.code(try await flow.invite())
            made.withLockedValue { $0 = code }
        }
        let code = made.withLockedValue { $0 }
        var closed = open
        closed.signUp = .closed
        try await InvitationTestFlow.run(closed) { flow in
            for reply in [try await flow.preview(code), try await flow.exchange(code)] {
                #expect(reply.status == .forbidden && reply.errorCode == "signup_closed", "\(reply.text)")
            }
            #expect(try await flow.accountCount() == 0)
        }
    }
}
