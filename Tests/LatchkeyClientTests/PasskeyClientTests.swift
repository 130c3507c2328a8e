import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import LatchkeyClient
import NIOCore
import LatchkeyServer
import SoftAuthenticator
import Testing
import WebAuthn

/// The software authenticator behind the client's protocol, as the `latchkey` tool wires it.
struct SoftAdapter: Authenticator {
    let soft: SoftAuthenticator

    func create(_ options: PublicKeyCredentialCreationOptionsJSON, origin: String) async throws -> RegistrationResponseJSON {
        do { return try soft.makeCredential(options, origin: origin) } catch { throw ClientError.authenticatorRefused("\(error)") }
    }

    func get(_ options: PublicKeyCredentialRequestOptionsJSON, origin: String) async throws -> AuthenticationResponseJSON {
        do {
            return try soft.getAssertion(options, origin: origin)
        } catch .noCredentials {
            throw ClientError.noPasskeyForServer
        } catch {
            throw ClientError.authenticatorRefused("\(error)")
        }
    }
}

/// A live Latchkey on a free port with an in-memory database, for clients that speak real HTTP.
func withLiveServer(_ body: @Sendable (URL) async throws -> Void) async throws {
    var configuration = ServerConfiguration()
    configuration.port = 0
    configuration.rpId = "example.com"
    configuration.origins = ["https://example.com"]
    configuration.database = .sqliteMemory
    let latchkey = try await buildApplication(configuration: configuration)
    try await latchkey.application.test(.live) { client in
        let port = try #require(client.port)
        try await body(try #require(URL(string: "http://127.0.0.1:\(port)")))
    }
}

func makeClient(_ server: URL, authenticator: SoftAuthenticator = SoftAuthenticator(store: InMemoryCredentialStore()), tokens: some TokenStore = InMemoryTokenStore()) -> PasskeyClient {
    PasskeyClient(server: server, authenticator: SoftAdapter(soft: authenticator), tokenStore: tokens, origin: "https://example.com")
}

@Suite("PasskeyClient against a live server")
struct PasskeyClientTests {
    @Test("every method through a whole journey")
    func journey() async throws {
        try await withLiveServer { server in
            let tokens = InMemoryTokenStore()
            let phone = SoftAuthenticator(store: InMemoryCredentialStore())
            let client = makeClient(server, authenticator: phone, tokens: tokens)

            let registered = try await client.register(displayName: "Ada")
            #expect(registered.displayName == "Ada")
            #expect(tokens.token(for: server) != nil)
            #expect(try await client.account() == registered)
            let updated = try await client.update(displayName: "Ada L.", credo: "Poetical science")
            #expect(updated.credo == "Poetical science")
            #expect(try await client.passkeys().count == 1)

            // A second passkey comes from another authenticator: this one's is excluded (excludeCredentials).
            let laptop = makeClient(server, authenticator: SoftAuthenticator(store: InMemoryCredentialStore()), tokens: tokens)
            await #expect(throws: ClientError.self) { try await client.addPasskey(name: "Duplicate") }
            let added = try await laptop.addPasskey(name: "Second")
            #expect(added.name == "Second")
            let renamed = try await client.renamePasskey(id: added.id, name: "Backup")
            #expect(renamed.name == "Backup")
            try await client.removePasskey(id: added.id)
            let only = try await client.passkeys()
            #expect(only.count == 1)
            #expect(only[0].backupDescription == "synced passkey")
            #expect(only[0].providerName == "unknown provider", "the software authenticator's own AAGUID is in no list")
            // What to tell the platform's passkey manager: the current names, the passkeys still accepted.
            let signals = try await client.signals()
            #expect(signals.rpId == "example.com")
            #expect(signals.displayName == "Ada L." && signals.name == "Ada L.")
            #expect(signals.allAcceptedCredentialIds == [only[0].id])
            await #expect(throws: ClientError.refused(status: 409, code: "last_passkey", message: "This is the account's only passkey; add another before removing it, or delete the account.")) {
                try await client.removePasskey(id: only[0].id)
            }

            try await client.logout()
            #expect(tokens.token(for: server) == nil)
            await #expect(throws: ClientError.notLoggedIn) { try await client.account() }

            let again = try await client.login()
            #expect(again.id == registered.id)
            try await client.deleteAccount()
            #expect(tokens.token(for: server) == nil)
            await #expect(throws: ClientError.self) { try await client.login() }
        }
    }

    @Test("already logged in, and no passkey for this server")
    func stateErrors() async throws {
        try await withLiveServer { server in
            let client = makeClient(server)
            try await client.register(displayName: "Ada")
            await #expect(throws: ClientError.alreadyLoggedIn) { try await client.register(displayName: "Eve") }
            await #expect(throws: ClientError.alreadyLoggedIn) { try await client.login() }
            await #expect(throws: ClientError.noPasskeyForServer) { try await makeClient(server).login() }
            await #expect(throws: ClientError.notLoggedIn) { try await makeClient(server).passkeys() }
        }
    }

    @Test("an expired or revoked token is dropped and reported as not logged in")
    func staleToken() async throws {
        try await withLiveServer { server in
            let tokens = InMemoryTokenStore()
            tokens.save(Base64URL.encode([UInt8](repeating: 1, count: 32)), for: server)
            let client = makeClient(server, tokens: tokens)
            await #expect(throws: ClientError.notLoggedIn) { try await client.account() }
            #expect(tokens.token(for: server) == nil)
            // Register works again once the stale token is gone.
            tokens.save(Base64URL.encode([UInt8](repeating: 2, count: 32)), for: server)
            let account = try await client.register(displayName: "Ada")
            #expect(account.displayName == "Ada")
        }
    }

    @Test("the server's refusals surface with their code and message")
    func refusals() async throws {
        try await withLiveServer { server in
            let client = makeClient(server)
            try await client.register(displayName: "Ada")
            do {
                try await client.update(displayName: "   ")
                Issue.record("an empty display name was accepted")
            } catch {
                #expect(error as? ClientError == .refused(status: 422, code: "invalid_field", message: "displayName must not be empty."))
            }
            await #expect(throws: ClientError.self) { try await client.renamePasskey(id: "%%", name: "x") }
            await #expect(throws: ClientError.refused(status: 404, code: "unknown_passkey", message: "This account has no passkey with that id.")) {
                try await client.removePasskey(id: "AAAA")
            }
        }
    }

    @Test("events: the account's own history, newest first, a page at a time")
    func events() async throws {
        try await withLiveServer { server in
            let tokens = InMemoryTokenStore()
            let client = makeClient(server, tokens: tokens)
            await #expect(throws: ClientError.notLoggedIn) { try await client.events() }

            let account = try await client.register(displayName: "Ada")
            let first = try #require(try await client.passkeys().first)
            try await client.update(credo: "Poetical science")
            let laptop = makeClient(server, authenticator: SoftAuthenticator(store: InMemoryCredentialStore()), tokens: tokens)
            let second = try await laptop.addPasskey(name: "Second")
            try await client.renamePasskey(id: second.id, name: "Laptop")
            try await client.logout()
            try await client.login()

            let all = try await client.events()
            #expect(all.next == nil)
            #expect(all.events.map(\.event) == [
                "login.succeeded", "session.ended", "passkey.renamed", "passkey.added", "account.updated", "passkey.added", "account.created",
            ])
            #expect(all.events.map(\.passkeyId) == [first.id, nil, second.id, second.id, nil, first.id, nil])
            #expect(all.events[2].detail["name"] == .text("Laptop"))
            #expect(all.events[3].detail["name"] == .text("Second"))
            #expect(all.events[4].detail["fields"] == .text("credo"))
            #expect(all.events[0].detail["userVerified"] == .flag(true))
            #expect(all.events[6].detail["displayName"] == .text(account.displayName))
            #expect(all.events.allSatisfy { !$0.byOperator && $0.clientAddress == "127.0.0.1" })
            #expect(all.events.allSatisfy { $0.provider == nil }, "the software authenticator's AAGUID is in no list")
            let ids = all.events.compactMap { Int($0.id) }
            #expect(ids.count == 7 && ids == ids.sorted(by: >), "ids are numbers, newest first: \(ids)")
            #expect(zip(all.events, all.events.dropFirst()).allSatisfy { $0.at >= $1.at })

            // Page by page: three, three, then the last one; the pages join up to the whole history.
            let one = try await client.events(limit: 3)
            #expect(one.events.map(\.id) == all.events.prefix(3).map(\.id))
            let cursor = try #require(one.next)
            #expect(cursor == one.events.last?.id)
            let two = try await client.events(cursor: cursor, limit: 3)
            #expect(two.events.map(\.id) == all.events[3..<6].map(\.id))
            let secondCursor: String = try #require(two.next)
            let three = try await client.events(cursor: secondCursor, limit: 3)
            #expect(three.events.map(\.event) == ["account.created"])
            #expect(three.next == nil)

            await #expect(throws: ClientError.refused(status: 400, code: "invalid_parameter", message: "cursor must be the next value of a previous page.")) {
                try await client.events(cursor: "yesterday")
            }
            // Another account sees none of it.
            let eve = makeClient(server)
            try await eve.register(displayName: "Eve")
            #expect(try await eve.events().events.map(\.event) == ["passkey.added", "account.created"])
        }
    }

    @Test("an unreachable server")
    func unreachable() async throws {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        defer { _ = http.shutdown() as EventLoopFuture<Void> }
        let client = PasskeyClient(
            server: try #require(URL(string: "http://127.0.0.1:1")), authenticator: SoftAdapter(soft: SoftAuthenticator(store: InMemoryCredentialStore())),
            tokenStore: InMemoryTokenStore(), origin: "https://example.com", http: http)
        do {
            try await client.register(displayName: "Ada")
            Issue.record("registration against a closed port succeeded")
        } catch {
            guard case .unreachable = error else {
                Issue.record("expected unreachable, got \(error)")
                return
            }
        }
    }

    @Test("an answer that is not the API's is an invalid response")
    func invalidResponse() async throws {
        let router = Router()
        router.post("/api/login/options") { _, _ in "not json" }
        // The shape that traps Foundation's JSONDecoder (SECURITY-FINDINGS 1), from a hostile server.
        router.post("/api/registration/options") { _, _ -> Response in
            Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: String(repeating: "[", count: 513))))
        }
        router.get("/api/account") { _, _ -> Response in Response(status: .internalServerError) }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await app.test(.live) { http in
            let port = try #require(http.port)
            let server = try #require(URL(string: "http://127.0.0.1:\(port)"))
            let tokens = InMemoryTokenStore()
            let client = makeClient(server, tokens: tokens)
            do {
                try await client.login()
                Issue.record("a non-JSON answer was accepted")
            } catch {
                guard case .invalidResponse? = error as? ClientError else {
                    Issue.record("expected invalidResponse, got \(error)")
                    return
                }
            }
            do {
                try await client.register(displayName: "Ada")
                Issue.record("513 [ were accepted")
            } catch {
                guard case .invalidResponse? = error as? ClientError else {
                    Issue.record("expected invalidResponse, got \(error)")
                    return
                }
            }
            tokens.save("token", for: server)
            await #expect(throws: ClientError.self) { try await client.account() }
        }
    }

    @Test("the file token store keeps one token per server, readable only by its owner")
    func fileTokenStore() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-tokens-\(UUID().uuidString)/sessions.json")
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let store = FileTokenStore(url: url)
        let a = try #require(URL(string: "http://a.example"))
        let b = try #require(URL(string: "http://b.example"))
        try store.save("token-a", for: a)
        try store.save("token-b", for: b)
        #expect(try store.token(for: a) == "token-a")
        try store.remove(for: a)
        #expect(try store.token(for: a) == nil)
        #expect(try store.token(for: b) == "token-b")
        let mode = (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue
        #expect(mode == 0o600)
        // A file nested 513 deep (the shape that traps Foundation's decoder) is reported as corrupt.
        try Data(String(repeating: "[", count: 513).utf8).write(to: url)
        #expect(throws: ClientError.self) { try store.token(for: b) }
    }
}
