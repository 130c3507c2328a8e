import Foundation
import Hummingbird
import HummingbirdTesting
import NIOCore
import SoftAuthenticator
import Testing
import WebAuthn
@testable import LatchkeyServer

/// An in-process Latchkey with an in-memory SQLite database, driven through Hummingbird's router test
/// client, and a software authenticator acting as the user's passkey provider.
struct TestServer {
    static let origin = "https://example.com"

    static func configuration(_ adjust: (inout ServerConfiguration) -> Void = { _ in }) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.rpId = "example.com"
        configuration.origins = [origin]
        configuration.database = .sqliteMemory
        adjust(&configuration)
        return configuration
    }

    /// Runs `body` against a fresh server: in-process by default, or over real TCP connections (`.live`).
    static func run(
        _ configuration: ServerConfiguration = configuration(), now: @escaping @Sendable () -> Date = { Date() },
        over setup: TestingSetup = .router, _ body: @Sendable (APIClient) async throws -> Void
    ) async throws {
        try await withApplication(configuration, now: now, over: setup) { api, _ in try await body(api) }
    }

    /// `run`, for tests that also look behind the API (the store, its database).
    static func withApplication(
        _ configuration: ServerConfiguration = configuration(), now: @escaping @Sendable () -> Date = { Date() },
        over setup: TestingSetup = .router, _ body: @Sendable (APIClient, LatchkeyApplication) async throws -> Void
    ) async throws {
        let latchkey = try await buildApplication(configuration: configuration, now: now)
        try await latchkey.application.test(setup) { client in
            try await body(APIClient(client: client), latchkey)
        }
    }
}

/// A thin JSON client over the test client.
struct APIClient: Sendable {
    let client: any TestClientProtocol

    struct Reply: Sendable {
        let status: HTTPResponse.Status
        let headers: HTTPFields
        let data: Data
        var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] }
        var array: [[String: Any]]? { (try? JSONSerialization.jsonObject(with: data)) as? [[String: Any]] }
        var errorCode: String? { (json?["error"] as? [String: Any])?["code"] as? String }
        var text: String { String(decoding: data, as: UTF8.self) }
    }

    func send(
        _ method: HTTPRequest.Method, _ path: String, body: Data? = nil, token: String? = nil,
        headers extra: HTTPFields = [:], contentType: String? = "application/json"
    ) async throws -> Reply {
        var headers = extra
        if let token { headers[.authorization] = "Bearer \(token)" }
        if body != nil, let contentType { headers[.contentType] = contentType }
        let response = try await client.executeRequest(uri: path, method: method, headers: headers, body: body.map { ByteBuffer(bytes: $0) })
        return Reply(status: response.status, headers: response.headers, data: response.body.readableBytes > 0 ? Data(buffer: response.body) : Data())
    }

    func send(_ method: HTTPRequest.Method, _ path: String, json: some Encodable, token: String? = nil) async throws -> Reply {
        try await send(method, path, body: try JSONEncoder().encode(json), token: token)
    }

    func send(_ method: HTTPRequest.Method, _ path: String, object: [String: Any], token: String? = nil) async throws -> Reply {
        try await send(method, path, body: try JSONSerialization.data(withJSONObject: object), token: token)
    }

    // MARK: Ceremonies through a SoftAuthenticator

    struct Session: Sendable {
        let token: String
        let accountId: String
    }

    func creationOptions(_ reply: Reply) throws -> PublicKeyCredentialCreationOptionsJSON {
        #expect(reply.status == .ok, "options: \(reply.text)")
        struct Wrapper: Decodable { let publicKey: PublicKeyCredentialCreationOptionsJSON }
        return try JSONDecoder().decode(Wrapper.self, from: reply.data).publicKey
    }

    func requestOptions(_ reply: Reply) throws -> PublicKeyCredentialRequestOptionsJSON {
        #expect(reply.status == .ok, "options: \(reply.text)")
        struct Wrapper: Decodable { let publicKey: PublicKeyCredentialRequestOptionsJSON }
        return try JSONDecoder().decode(Wrapper.self, from: reply.data).publicKey
    }

    func register(_ displayName: String, with authenticator: SoftAuthenticator, origin: String = TestServer.origin) async throws -> Session {
        let options = try creationOptions(try await send(.post, "/api/registration/options", object: ["displayName": displayName]))
        let credential = try authenticator.makeCredential(options, origin: origin)
        let reply = try await send(.post, "/api/registration/verify", json: ["credential": credential])
        try #require(reply.status == .created, "register: \(reply.text)")
        let token = try #require(reply.json?["token"] as? String)
        let account = try #require(reply.json?["account"] as? [String: Any])
        return Session(token: token, accountId: try #require(account["id"] as? String))
    }

    func loginResponse(with authenticator: SoftAuthenticator, origin: String = TestServer.origin) async throws -> AuthenticationResponseJSON {
        let options = try requestOptions(try await send(.post, "/api/login/options"))
        return try authenticator.getAssertion(options, origin: origin)
    }

    func login(with authenticator: SoftAuthenticator) async throws -> Reply {
        try await send(.post, "/api/login/verify", json: ["credential": try await loginResponse(with: authenticator)])
    }
}
