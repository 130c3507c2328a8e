import Foundation
import SoftAuthenticator
import Testing
@testable import LatchkeyServer

/// Bad input gets a clear 4xx JSON error naming what was wrong — never a 500, never a crash.
@Suite("Input validation")
struct InputValidationTests {
    @Test("bodies over 64 KiB are 413")
    func tooLarge() async throws {
        try await TestServer.run { api in
            let big = Data(#"{"displayName":""#.utf8) + Data(repeating: 0x61, count: 70_000) + Data(#""}"#.utf8)
            let reply = try await api.send(.post, "/api/registration/options", body: big)
            #expect(reply.status == .contentTooLarge)
            #expect(reply.errorCode == "body_too_large")
        }
    }

    @Test("wrong content type, malformed JSON, missing and mistyped fields are 400 naming the problem")
    func malformed() async throws {
        try await TestServer.run { api in
            var reply = try await api.send(.post, "/api/registration/options", body: Data(#"{"displayName":"A"}"#.utf8), contentType: "text/plain")
            #expect(reply.status == .badRequest)
            #expect(reply.errorCode == "unsupported_content_type")
            reply = try await api.send(.post, "/api/registration/options", body: Data("{".utf8))
            #expect(reply.errorCode == "malformed_json")
            reply = try await api.send(.post, "/api/registration/options", object: [:])
            #expect(reply.errorCode == "missing_field")
            #expect(reply.text.contains("displayName"))
            reply = try await api.send(.post, "/api/registration/options", object: ["displayName": 42])
            #expect(reply.errorCode == "invalid_type")
            reply = try await api.send(.post, "/api/login/verify", object: ["credential": ["id": "x"]])
            #expect(reply.status == .badRequest)
            #expect(reply.errorCode == "missing_field")
            reply = try await api.send(.post, "/api/login/verify", object: [:])
            #expect(reply.text.contains("credential"))
        }
    }

    @Test("garbage credentials fail verification with the step, not a crash", arguments: [
        "%%%", "e30", "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiQUFBQSIsIm9yaWdpbiI6Imh0dHBzOi8vZXhhbXBsZS5jb20ifQ", "",
    ])
    func garbageAssertions(clientDataJSON: String) async throws {
        try await TestServer.run { api in
            let credential: [String: Any] = [
                "id": "AA", "rawId": "AA", "type": "public-key",
                "response": ["clientDataJSON": clientDataJSON, "authenticatorData": "AA", "signature": "AA"],
            ]
            let reply = try await api.send(.post, "/api/login/verify", object: ["credential": credential])
            #expect(reply.status == .unauthorized)
            #expect(reply.errorCode != nil)
        }
    }

    @Test("field rules: characters not bytes; credo 0–255; passkey names 1–64")
    func fieldRules() async throws {
        try await TestServer.run { api in
            let session = try await api.register(String(repeating: "🦊", count: 255), with: SoftAuthenticator(store: InMemoryCredentialStore()))
            var reply = try await api.send(.patch, "/api/account", object: ["credo": String(repeating: "é", count: 255)], token: session.token)
            #expect(reply.status == .ok)
            reply = try await api.send(.patch, "/api/account", object: ["credo": ""], token: session.token)
            #expect(reply.status == .ok)
            reply = try await api.send(.patch, "/api/account", object: ["credo": String(repeating: "x", count: 256)], token: session.token)
            #expect(reply.status == .unprocessableContent)
            reply = try await api.send(.patch, "/api/account", object: [:], token: session.token)
            #expect(reply.status == .unprocessableContent)
            let passkeys = try #require(try await api.send(.get, "/api/account/passkeys", token: session.token).array)
            let id = try #require(passkeys.first?["id"] as? String)
            #expect((passkeys.first?["name"] as? String)?.count == 64, "the first passkey's name is the display name, cut to 64")
            reply = try await api.send(.patch, "/api/account/passkeys/\(id)", object: ["name": String(repeating: "n", count: 65)], token: session.token)
            #expect(reply.status == .unprocessableContent)
            reply = try await api.send(.patch, "/api/account/passkeys/not*base64", object: ["name": "x"], token: session.token)
            #expect(reply.status == .badRequest)
            reply = try await api.send(.delete, "/api/account/passkeys/AAAA", token: session.token)
            #expect(reply.status == .notFound)
        }
    }

    @Test("cookie-authenticated changes must come from an allowed origin")
    func cookieOrigin() async throws {
        try await TestServer.run { api in
            let session = try await api.register("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            let cookie = "\(SessionCookie.name(secure: true, domain: nil))=\(session.token)"
            var reply = try await api.send(.get, "/api/account", headers: [.cookie: cookie])
            #expect(reply.status == .ok)
            reply = try await api.send(.delete, "/api/account", headers: [.cookie: cookie, .origin: "https://evil.example"])
            #expect(reply.status == .forbidden)
            reply = try await api.send(.get, "/api/account", headers: [.cookie: cookie])
            #expect(reply.status == .ok, "the refused request changed nothing")
        }
    }

    @Test("unknown paths are a JSON 404")
    func unknownPath() async throws {
        try await TestServer.run { api in
            let reply = try await api.send(.get, "/api/nothing")
            #expect(reply.status == .notFound)
            #expect(reply.errorCode == "not_found")
        }
    }
}
