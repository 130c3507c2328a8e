import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LatchkeyServer
import Logging
import NIOCore
import SoftAuthenticator
import WebAuthn

/// Logins and registrations through `latchkey serve`'s own application (`buildApplication`), in this
/// process, over Hummingbird's router test client as the Swift tests drive it (no sockets): a SQLite file
/// in a temporary directory, the server's log handler at warning (on /dev/null), the clock fixed. Each request is one measured window; the software authenticator's work
/// (making the key, signing) and the client's JSON happen between windows and are not counted.
struct CeremonyWorkload {
    enum Kind: String {
        /// `POST /api/login/options` and `POST /api/login/verify`, a discoverable login of one account.
        case login
        /// `POST /api/registration/options` and `POST /api/registration/verify`: a new account each time.
        case registration
    }

    static let origin = "https://example.com"
    /// The server's clock: a fixed instant, so that nothing it does depends on the day it runs.
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    let kind: Kind
    let iterations: Int
    let warmUp: Int

    /// Runs the warm-up, then `iterations` measured ceremonies; returns the windows measured.
    func run() async throws -> Int {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-counts-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        var configuration = ServerConfiguration()
        configuration.rpId = "example.com"
        configuration.origins = [Self.origin]
        configuration.database = .sqlite(path: directory.appendingPathComponent("counts.sqlite").path)
        // Raised far above what the workload sends (one address, many requests), as `latchkey bench`
        // does: the limiter still runs, and its cost is counted.
        configuration.rateLimit = 1_000_000_000
        // No purge wakes up in the middle of a window (the first, at start-up, runs before any; the
        // longest interval allowed is far longer than a run under valgrind).
        configuration.housekeepingInterval = 3600
        // Nor a round of the search's indexing (one a second would land in windows by chance).
        configuration.searchIndexingInterval = 3600
        let devNull = open("/dev/null", O_WRONLY)
        guard devNull >= 0 else { throw CountsFailure(description: "cannot open /dev/null") }
        defer { close(devNull) }
        // The server's own handler, but at warning: a request's info line is not written. Its time is
        // rendered once a wall-clock second (`LogClock`), and under valgrind, where a login takes about
        // a second, whether that lands in a window was chance — 2 % of a login's allocations.
        var logger = Logger(label: "latchkey") { LineLogHandler(label: $0, fileDescriptor: devNull) }
        logger.logLevel = .warning

        let latchkey = try await buildApplication(configuration: configuration, logger: logger, now: { Self.now })
        let kind = self.kind
        let iterations = self.iterations
        let warmUp = self.warmUp
        return try await latchkey.application.test(.router) { client in
            let api = CountsClient(client: client)
            let window = MeasuredWindow()
            switch kind {
            case .login:
                let authenticator = SoftAuthenticator(store: InMemoryCredentialStore())
                try await api.register(with: authenticator, window: nil)
                for _ in 0..<warmUp { try await api.login(with: authenticator, window: nil) }
                for _ in 0..<iterations { try await api.login(with: authenticator, window: window) }
            case .registration:
                for _ in 0..<warmUp { try await api.register(with: SoftAuthenticator(store: InMemoryCredentialStore()), window: nil) }
                for _ in 0..<iterations { try await api.register(with: SoftAuthenticator(store: InMemoryCredentialStore()), window: window) }
            }
            return window.count
        }
    }
}

/// The two requests of each ceremony, each in a window when one is given.
private struct CountsClient {
    let client: any TestClientProtocol

    private struct Options<T: Decodable>: Decodable { let publicKey: T }

    private func post(_ path: String, body: Data?, expect status: HTTPResponse.Status, window: MeasuredWindow?) async throws -> Data {
        var headers: HTTPFields = [:]
        if body != nil { headers[.contentType] = "application/json" }
        let buffer = body.map { ByteBuffer(bytes: $0) }
        let response: TestResponse
        if let window {
            response = try await window.measure {
                try await client.executeRequest(uri: path, method: .post, headers: headers, body: buffer)
            }
        } else {
            response = try await client.executeRequest(uri: path, method: .post, headers: headers, body: buffer)
        }
        let data = Data(buffer: response.body)
        guard response.status == status else {
            throw CountsFailure(description: "\(path) answered \(response.status.code), not \(status.code): \(String(decoding: data, as: UTF8.self))")
        }
        return data
    }

    func register(with authenticator: SoftAuthenticator, window: MeasuredWindow?) async throws {
        let optionsData = try await post(
            "/api/registration/options", body: try JSONEncoder().encode(["displayName": "Counts"]), expect: .ok, window: window)
        let options = try GatedJSONDecoder(limit: 64 * 1024).decode(Options<PublicKeyCredentialCreationOptionsJSON>.self, from: optionsData).publicKey
        let credential = try authenticator.makeCredential(options, origin: CeremonyWorkload.origin)
        _ = try await post("/api/registration/verify", body: try JSONEncoder().encode(["credential": credential]), expect: .created, window: window)
    }

    func login(with authenticator: SoftAuthenticator, window: MeasuredWindow?) async throws {
        let optionsData = try await post("/api/login/options", body: nil, expect: .ok, window: window)
        let options = try GatedJSONDecoder(limit: 64 * 1024).decode(Options<PublicKeyCredentialRequestOptionsJSON>.self, from: optionsData).publicKey
        let credential = try authenticator.getAssertion(options, origin: CeremonyWorkload.origin)
        _ = try await post("/api/login/verify", body: try JSONEncoder().encode(["credential": credential]), expect: .ok, window: window)
    }
}
