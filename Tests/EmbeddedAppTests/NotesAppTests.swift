import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LatchkeyServer
import NIOCore
import SoftAuthenticator
import Testing
import WebAuthn
@testable import EmbeddedApp

/// The example app that embeds Latchkey (Examples/EmbeddedApp), driven in-process: sign up with a
/// software passkey at /auth/api/…, then the app's own /notes routes see the account.
@Suite("An app that embeds Latchkey")
struct NotesAppTests {
    static let origin = "https://notes.example.com"

    static func configuration() -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.rpId = "notes.example.com"
        configuration.origins = [origin]
        configuration.database = .sqliteMemory
        return configuration
    }

    struct Client {
        let client: any TestClientProtocol

        func send(_ method: HTTPRequest.Method, _ path: String, json: Data? = nil, token: String? = nil) async throws -> (HTTPResponse.Status, HTTPFields, Data) {
            var headers = HTTPFields()
            if let token { headers[.authorization] = "Bearer \(token)" }
            if json != nil { headers[.contentType] = "application/json" }
            let response = try await client.executeRequest(uri: path, method: method, headers: headers, body: json.map { ByteBuffer(bytes: $0) })
            return (response.status, response.headers, Data(buffer: response.body))
        }

        /// Sign-up through the mounted Latchkey; returns the session token.
        func signUp(_ name: String, with authenticator: SoftAuthenticator) async throws -> String {
            struct Options: Decodable { let publicKey: PublicKeyCredentialCreationOptionsJSON }
            let (status, _, body) = try await send(.post, "/auth/api/registration/options", json: try JSONEncoder().encode(["displayName": name]))
            try #require(status == .ok, "\(String(decoding: body, as: UTF8.self))")
            let credential = try authenticator.makeCredential(try JSONDecoder().decode(Options.self, from: body).publicKey, origin: NotesAppTests.origin)
            let (created, _, session) = try await send(.post, "/auth/api/registration/verify", json: try JSONEncoder().encode(["credential": credential]))
            try #require(created == .created, "\(String(decoding: session, as: UTF8.self))")
            struct Session: Decodable { let token: String }
            return try JSONDecoder().decode(Session.self, from: session).token
        }
    }

    static func errorCode(_ body: Data) -> String? {
        struct Body: Decodable { struct Error: Decodable { let code: String }; let error: Error }
        return try? JSONDecoder().decode(Body.self, from: body).error.code
    }

    @Test("a signed-in account keeps its own note; anonymous callers and other accounts do not see it")
    func notesBehindSignIn() async throws {
        let app = try await buildNotesApp(configuration: Self.configuration())
        try await app.test(.router) { client in
            let api = Client(client: client)
            let (anonymous, _, refusal) = try await api.send(.get, "/notes")
            #expect(anonymous == .unauthorized && Self.errorCode(refusal) == "not_authenticated")

            let ada = try await api.signUp("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            let (saved, _, _) = try await api.send(.put, "/notes", json: Data(#"{"text":"buy milk"}"#.utf8), token: ada)
            #expect(saved == .ok)
            let (read, _, note) = try await api.send(.get, "/notes", token: ada)
            #expect(read == .ok)
            #expect(try JSONDecoder().decode(NoteJSON.self, from: note).text == "buy milk")

            let grace = try await api.signUp("Grace", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            let (_, _, other) = try await api.send(.get, "/notes", token: grace)
            #expect(try JSONDecoder().decode(NoteJSON.self, from: other).text == "", "Grace has her own, empty note")

            // Latchkey's own routes work under the prefix: the account, logout.
            let (account, _, _) = try await api.send(.get, "/auth/api/account", token: ada)
            #expect(account == .ok)
            #expect(try await api.send(.post, "/auth/api/logout", token: ada).0 == .noContent)
            let (after, _, _) = try await api.send(.get, "/notes", token: ada)
            #expect(after == .unauthorized, "a session that ended opens nothing in the app either")
            let (badToken, _, body) = try await api.send(.get, "/notes", token: "not-a-token")
            #expect(badToken == .unauthorized && Self.errorCode(body) == "not_authenticated")
        }
    }

    @Test("the page is served under the prefix (the bare prefix redirects to it), the well-known documents at the root")
    func pageAndWellKnown() async throws {
        let app = try await buildNotesApp(configuration: Self.configuration())
        try await app.test(.router) { client in
            let api = Client(client: client)
            let (page, headers, html) = try await api.send(.get, "/auth/")
            #expect(page == .ok && headers[.contentType]?.hasPrefix("text/html") == true)
            #expect(String(decoding: html, as: UTF8.self).contains(#"src="app.js""#), "relative, so it loads /auth/app.js")
            #expect(try await api.send(.get, "/auth/app.js").0 == .ok)
            let (redirect, location, _) = try await api.send(.get, "/auth")
            #expect(redirect == .permanentRedirect && location[.location] == "/auth/")
            #expect(try await api.send(.get, "/.well-known/webauthn").0 == .ok)
            #expect(try await api.send(.get, "/api/login/options").0 == .notFound, "nothing of Latchkey outside its prefix")
            let (unknown, _, body) = try await api.send(.post, "/auth/api/nothing-here")
            #expect(unknown == .notFound)
            #expect(body.isEmpty || Self.errorCode(body) != nil, "the app's router answers unknown paths its own way")
        }
    }
}
