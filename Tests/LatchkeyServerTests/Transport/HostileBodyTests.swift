import Foundation
import HTTPTypes
import LatchkeyAPI
import SoftAuthenticator
import Testing
import WebAuthn
@testable import LatchkeyServer

/// Deeply nested JSON on every route that reads a body (SECURITY-FINDINGS 1, issue 17). Foundation's
/// `JSONDecoder` trapped — killing the whole server — on exactly 513 `[` and nothing after; every body
/// now goes through the strict parser, which refuses nesting deeper than 64 before anything else reads it.
@Suite("Hostile request bodies")
struct HostileBodyTests {
    /// The shapes of the finding and of issue 17: arrays and objects, 513 (the crashing shape), 1 000 and
    /// 100 000 deep, unterminated and terminated.
    static let bodies: [(name: String, bytes: Data)] = {
        var bodies: [(String, Data)] = []
        for depth in [513, 1000, 100_000] {
            let open = String(repeating: "[", count: depth)
            bodies.append(("\(depth) [ unterminated", Data(open.utf8)))
            bodies.append(("\(depth) [ terminated", Data((open + String(repeating: "]", count: depth)).utf8)))
            let member = String(repeating: #"{"a":"#, count: depth)
            bodies.append(("\(depth) { unterminated", Data(member.utf8)))
            bodies.append(("\(depth) { terminated", Data((member + "1" + String(repeating: "}", count: depth)).utf8)))
        }
        return bodies
    }()

    /// Every body-reading route; `token` marks those sent with a session, `passkey` the rename route.
    enum Route: String, CaseIterable, CustomTestStringConvertible {
        case registrationOptions, registrationOptionsSignedIn, registrationVerify, registrationVerifySignedIn, loginVerify, updateAccount, renamePasskey

        var testDescription: String { rawValue }
        var signedIn: Bool { ![.registrationOptions, .registrationVerify, .loginVerify].contains(self) }
    }

    @Test("deep JSON on every body-reading route answers 4xx with the error shape, and the server keeps serving", arguments: Route.allCases)
    func deepJSON(route: Route) async throws {
        try await TestServer.run { api in
            var token: String?
            var passkeyId = "AAAA"
            if route.signedIn {
                let session = try await api.register("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
                token = session.token
                let passkeys = try await api.send(.get, "/api/account/passkeys", token: session.token)
                passkeyId = try #require(passkeys.array?.first?["id"] as? String)
            }
            let (method, path): (HTTPRequest.Method, String) = switch route {
            case .registrationOptions, .registrationOptionsSignedIn: (.post, "/api/registration/options")
            case .registrationVerify, .registrationVerifySignedIn: (.post, "/api/registration/verify")
            case .loginVerify: (.post, "/api/login/verify")
            case .updateAccount: (.patch, "/api/account")
            case .renamePasskey: (.patch, "/api/account/passkeys/\(passkeyId)")
            }
            for (name, body) in Self.bodies {
                let reply = try await api.send(method, path, body: body, token: token)
                // Over 64 KiB is 413 body_too_large (DESIGN §3) before any parsing; everything else is a 400.
                let expected: HTTPResponse.Status = body.count > RequestBody.limit ? .contentTooLarge : .badRequest
                #expect(reply.status == expected, "\(name): \(reply.status) \(reply.text)")
                let error = try #require(reply.json?["error"] as? [String: Any], "\(name): \(reply.text)")
                #expect(error["code"] as? String == (expected == .badRequest ? "malformed_json" : "body_too_large"), "\(name)")
                #expect((error["message"] as? String)?.isEmpty == false, "\(name)")
            }
            #expect(try await api.send(.get, "/healthz").status == .ok)
            if let token {
                #expect(try await api.send(.get, "/api/account", token: token).status == .ok, "the session still works")
            }
        }
    }

    @Test("a body nested exactly 64 deep is read (the limit is the parser's, not an accident of one shape)")
    func atTheLimit() async throws {
        try await TestServer.run { api in
            // 63 arrays around the object: 64 levels; the object is not what registration options expect.
            let body = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
            let reply = try await api.send(.post, "/api/registration/options", body: Data(body.utf8))
            #expect(reply.status == .badRequest)
            #expect(reply.errorCode == "invalid_type", "parsed, then refused for its shape: \(reply.text)")
            let deeper = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
            #expect(try await api.send(.post, "/api/registration/options", body: Data(deeper.utf8)).errorCode == "malformed_json")
        }
    }
}
