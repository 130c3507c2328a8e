import Foundation
import HTTPTypes
import LatchkeyAPI
import NIOCore
import SoftAuthenticator
import Testing
import WebAuthn
@testable import LatchkeyServer

/// The rules every text field follows (`InputRules`), through the API.
@Suite("Text fields: byte caps, control characters, bidirectional overrides")
struct TextFieldRuleTests {
    @Test("text fields are capped in bytes as well as characters: one 60 KB \"character\" is refused (SECURITY-FINDINGS.md, finding 9)")
    func byteCaps() async throws {
        try await TestServer.run { api in
            let huge = "e" + String(repeating: "\u{301}", count: 30_000) // one grapheme cluster, 60 001 bytes
            #expect(huge.count == 1)
            var reply = try await api.send(.post, "/api/registration/options", object: ["displayName": huge])
            #expect(reply.status == .unprocessableContent)
            #expect(reply.text.contains("1020 bytes"), "\(reply.text)")
            let session = try await api.register("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            reply = try await api.send(.patch, "/api/account", object: ["credo": huge], token: session.token)
            #expect(reply.status == .unprocessableContent)
            reply = try await api.send(.patch, "/api/account", object: ["credo": "a" + String(repeating: "\u{301}", count: 510)], token: session.token)
            #expect(reply.status == .unprocessableContent, "1 021 bytes")
            reply = try await api.send(.patch, "/api/account", object: ["credo": String(repeating: "😀", count: 255)], token: session.token)
            #expect(reply.status == .ok, "255 four-byte characters are exactly at both limits")
            let passkeys = try await api.send(.get, "/api/account/passkeys", token: session.token)
            let id = try #require(passkeys.array?.first?["id"] as? String)
            reply = try await api.send(.patch, "/api/account/passkeys/\(id)", object: ["name": "e" + String(repeating: "\u{301}", count: 200)], token: session.token)
            #expect(reply.status == .unprocessableContent)
        }
    }

    @Test("the API refuses control characters in a credo (NUL among them), keeps tabs and line breaks (SECURITY-FINDINGS.md, finding 12)")
    func nulRefused() async throws {
        try await TestServer.run { api in
            let session = try await api.register("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            var reply = try await api.send(.patch, "/api/account", object: ["credo": "before\u{0}after"], token: session.token)
            #expect(reply.status == .unprocessableContent)
            reply = try await api.send(.patch, "/api/account", object: ["credo": "one\ttwo\r\nthree"], token: session.token)
            #expect(reply.status == .ok)
            #expect(try await api.send(.get, "/api/account", token: session.token).json?["credo"] as? String == "one\ttwo\r\nthree")
        }
    }

    @Test("names refuse bidirectional overrides (right-to-left text is fine); stored transports are the known ones (SECURITY-FINDINGS.md, info)")
    func infoFindings() async throws {
        #expect(throws: APIError.self) { try InputRules.displayName("Ada\u{202E}moc.elpmaxe") }
        #expect(throws: APIError.self) { try InputRules.passkeyName("Phone\u{2066}x\u{2069}") }
        #expect(try InputRules.displayName("עדה לאבלייס") == "עדה לאבלייס")
        #expect(try InputRules.displayName("Ada\u{200F}") == "Ada\u{200F}", "a right-to-left mark is not an override")
        #expect(InputRules.transports(["internal", "hybrid", "internal", "usb,nfc", String(repeating: "x", count: 10_000), "cable"]) == ["internal", "hybrid"])
    }
}
