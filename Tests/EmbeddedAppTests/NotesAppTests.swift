#if canImport(Glibc)
import Glibc
#endif
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

    @Test("the app's own bodies go through Latchkey's gate: JSON nested 513 deep is a 400, not a crash; a 60 KB \"character\" is refused (review 3, finding 9)")
    func hostileNoteBodies() async throws {
        let app = try await buildNotesApp(configuration: Self.configuration())
        try await app.test(.router) { client in
            let api = Client(client: client)
            let ada = try await api.signUp("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            for depth in [513, 5000] {
                let (status, _, _) = try await api.send(.put, "/notes", json: Data(String(repeating: "[", count: depth).utf8), token: ada)
                #expect(status == .badRequest, "\(depth) deep")
            }
            let (nested, _, _) = try await api.send(.put, "/notes", json: Data(#"{"text":"a","x":\#(String(repeating: "[", count: 100))1\#(String(repeating: "]", count: 100))}"#.utf8), token: ada)
            #expect(nested == .badRequest, "deeper than 64 inside a valid object")
            let grapheme = "e" + String(repeating: "\u{301}", count: 30_000)
            let (huge, _, _) = try await api.send(.put, "/notes", json: try JSONEncoder().encode(NoteJSON(text: grapheme)), token: ada)
            #expect(huge == .badRequest)
            let (wrong, _, _) = try await api.send(.put, "/notes", json: Data(#"{"txt":"a"}"#.utf8), token: ada)
            #expect(wrong == .badRequest)
            let (saved, _, _) = try await api.send(.put, "/notes", json: Data(#"{"text":"still fine"}"#.utf8), token: ada)
            #expect(saved == .ok)
        }
    }

    @Test("the app runs with latchkey serve's connection protections: a head that never finishes is closed at the head deadline, a silent connection is not (review 3, finding 9)")
    func connectionProtections() async throws {
        var configuration = Self.configuration()
        configuration.host = "127.0.0.1"
        configuration.port = 0
        configuration.headTimeout = 1
        let app = try await buildNotesApp(configuration: configuration)
        try await app.test(.live) { client in
            let port = try #require(client.port)
            let started = ContinuousClock.now
            let closedByServer = try HalfSentHead.send(to: port, waitingAtMost: 20)
            #expect(closedByServer, "the server closed the connection")
            // The idle time-out is 30 s; the head deadline is 1 s. 20 s is far from both, so this
            // tells which one closed it without timing anything tightly.
            #expect(ContinuousClock.now - started < .seconds(20))
            let (status, _, _) = try await Client(client: client).send(.get, "/auth/app.js")
            #expect(status == .ok, "and it still serves")
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

/// A raw TCP client that sends half a request head and waits for the server to close the connection.
enum HalfSentHead {
    /// True when the server closed the connection within `seconds`.
    static func send(to port: Int, waitingAtMost seconds: Int) throws -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw POSIXError(.ECONNREFUSED) }
        let head = Array("GET /auth/app.js HTTP/1.1\r\nHost: x\r\n".utf8)
        _ = head.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 512)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        return count == 0 || (count < 0 && errno == ECONNRESET)
    }
}
