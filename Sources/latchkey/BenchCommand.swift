import ArgumentParser
import AsyncHTTPClient
import Foundation
import LatchkeyDatabase
@_spi(Benchmark) import LatchkeyServer
import Logging
import NIOCore
import NIOHTTP1
import SoftAuthenticator
import WebAuthn

/// `latchkey bench`: a small load generator for the login ceremony. It starts `latchkey serve` (this
/// same binary) on a private SQLite database — or drives one started elsewhere (`--server URL`: an
/// instance, or the cluster's proxy) — registers accounts through the API, then runs discoverable
/// logins (options + SoftAuthenticator signing + verify) with 1, 16, … concurrent clients and reports
/// throughput, latency percentiles and the server's CPU time per login (from /proc, for the server it
/// started or the `--server-pid`s given). `--pin` gives the server core 0 and the load generator the
/// others. Build it in release mode first; the numbers are for reading, not for asserting.
struct BenchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure logins per second, latency and server CPU per login against a local latchkey serve.")

    @Option(help: "Accounts in the database while measuring (login cost must not grow with them). The ones that log in are registered through the API; with a server the benchmark starts, the rest are inserted in bulk first.")
    var accounts = 1000
    @Option(help: "Concurrent clients, comma-separated; one measurement each.")
    var clients = "1,16"
    @Option(help: "Seconds per measurement.")
    var duration = 10.0
    @Option(help: "Keep the server's database here instead of a temporary directory.")
    var database: String?
    @Option(help: "The server's LOG_LEVEL: info logs every request, as a default server does; warning does not.")
    var serverLogLevel = "info"
    @Flag(help: "Also measure the HTTP floor: per iteration the same client work, but two GET /healthz instead of the two login requests.")
    var floor = false
    @Option(help: "The load generator: lean (blocking sockets, a thread per client) or async-http-client.")
    var client: LoadGenerator = .lean
    @Option(help: "Drive this server instead of starting one (http://host:port: an instance, or a proxy in front of several).")
    var server: String?
    @Option(help: "With --server: the passkeys' origin, when it is not the URL's (an instance addressed directly behind a proxy).")
    var origin: String?
    @Option(name: .customLong("server-pid"), help: "With --server: a server process whose CPU time counts (repeat for several instances); without one, no CPU figures.")
    var serverPids: [Int32] = []
    @Flag(name: .customLong("postgres-cpu"), help: "Also report the CPU time of every process named postgres on this machine, per login.")
    var postgresCPU = false
    @Flag(help: "The server (every --server-pid, or the one started) on core 0, the load generator on the other cores.")
    var pin = false
    @Flag(help: "Also measure registrations: per iteration options, a new passkey made by SoftAuthenticator, verify (a new account each time).")
    var registration = false
    @Flag(help: "Also measure a whole OpenID Connect sign-in (the server started with --oidc): per iteration a passkey login, the authorization (a first-party client: no consent), the code for tokens at /oidc/token, and /oidc/userinfo.")
    var oidc = false
    @Flag(name: .customLong("forward-auth"), help: "Also measure the forward-auth check (the server started with --forward-auth-rule '* signed-in'): per iteration one GET /api/forward-auth with a signed-in session's cookie and a proxy's X-Forwarded-* headers, against a floor of one GET /healthz.")
    var forwardAuth = false
    @Flag(help: "Also measure a whole recovery: per iteration an operator's grant (POST /api/admin/accounts/ID/recovery with a recovery key the benchmark stores), its code exchanged for a restricted session, and a new passkey added with it (options, SoftAuthenticator, verify).")
    var recovery = false
    @Flag(help: "Also measure the physical limit (implies --floor; a server the benchmark starts): after the load, on the server's core, one P-256 verification of a login's signature and one durable commit of a login's writes (and of a new account's), through the server's own code on its database; each flow is reported against floor + verifications + commit.")
    var limit = false

    enum LoadGenerator: String, ExpressibleByArgument {
        case lean
        case asyncHTTPClient = "async-http-client"
    }

    func run() async throws {
        let clientCounts = clients.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }.filter { $0 > 0 }
        guard !clientCounts.isEmpty, accounts >= (clientCounts.max() ?? 1), duration > 0 else {
            throw ValidationError("--clients must list positive numbers, --accounts at least the largest of them, --duration positive")
        }
        guard server != nil || (origin == nil && serverPids.isEmpty) else {
            throw ValidationError("--origin and --server-pid go with --server")
        }
        guard !pin || CPUAffinity.coreCount >= 2 else { throw ValidationError("--pin needs at least two cores") }
        guard !oidc || client == .lean else { throw ValidationError("--oidc runs with the lean client") }
        guard !recovery || (client == .lean && server == nil) else {
            throw ValidationError("--recovery runs with the lean client, on a server the benchmark starts (its admin key is stored in that database)")
        }
        guard !forwardAuth || (client == .lean && server == nil) else {
            throw ValidationError("--forward-auth runs with the lean client, on a server the benchmark starts (with its forward-auth rule)")
        }
        guard !limit || server == nil else {
            throw ValidationError("--limit measures commits on the database of a server the benchmark starts; it does not go with --server")
        }
        guard !oidc || server == nil else {
            throw ValidationError("--oidc registers its client in the database of the server the benchmark starts; it does not go with --server")
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let started: BenchServer?
        let target: BenchTarget
        var bulkInserted = 0
        var pids = serverPids
        var adminKey: String?
        if let server {
            started = nil
            target = try BenchTarget(url: server, origin: origin)
        } else {
            let location = try DatabaseLocation(parsing: database ?? "sqlite:\(directory.path)/bench.sqlite")
            if database != nil {
                let existing = try await BulkAccounts.existing(in: location, logger: Logger(label: "bench"))
                guard existing == 0 else {
                    throw ValidationError("--database \(location) already holds \(existing) accounts; the benchmark needs an empty database (its figures are for --accounts accounts)")
                }
            }
            let bulk = accounts - (clientCounts.max() ?? 1)
            if bulk > 0 {
                print("latchkey bench: inserting \(bulk) accounts in bulk into \(location)…")
                let took = try await BulkAccounts.insert(count: bulk, into: location, logger: Logger(label: "bench"))
                print(String(format: "latchkey bench: %d accounts inserted in %.1f s", bulk, Double(took.components.seconds) + Double(took.components.attoseconds) / 1e18))
            }
            bulkInserted = max(bulk, 0)
            if oidc { try await BenchOIDCClient.register(secret: Self.oidcSecret, into: location, logger: Logger(label: "bench")) }
            if recovery { adminKey = try await BenchAdminKey.create(in: location, logger: Logger(label: "bench")) }
            let process = try BenchServer.start(
                database: database ?? "sqlite:\(directory.path)/bench.sqlite", logLevel: serverLogLevel, oidc: oidc, recovery: recovery,
                forwardAuth: forwardAuth)
            started = process
            target = try BenchTarget(url: process.base, origin: BenchServer.origin)
            pids = [process.pid]
        }
        defer { started?.stop() }
        if pin {
            for pid in pids { try CPUAffinity.pin(pid, to: [0]) }
            try CPUAffinity.pin(getpid(), to: Array(1..<CPUAffinity.coreCount))
        }
        defer {
            // A server started elsewhere gets every core back.
            if pin, started == nil { for pid in pids { try? CPUAffinity.pin(pid, to: Array(0..<CPUAffinity.coreCount)) } }
        }

        var configuration = HTTPClient.Configuration()
        configuration.connectionPool = .init(idleTimeout: .seconds(60), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        do {
            let perCount = try await measureAll(
                api: BenchAPI(http: http, base: target.base), target: target, pids: pids, clientCounts: clientCounts, register: accounts - bulkInserted,
                adminKey: adminKey)
            if limit, let started {
                try await measureLimit(database: try DatabaseLocation(parsing: started.database), perCount: perCount, serverPid: started.pid)
            }
            if let started {
                let memory = ProcessStats.residentMemory(of: started.pid)
                let size = try await BulkAccounts.size(of: try DatabaseLocation(parsing: started.database), logger: Logger(label: "bench"))
                print(String(format: "server RSS %.1f MiB now, %.1f MiB at its peak; database %.1f MiB (%@)",
                             Double(memory.now) / 1_048_576, Double(memory.peak) / 1_048_576, Double(size) / 1_048_576, started.database))
            }
        } catch {
            try? await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }

    /// Measures every client count; returns the server's CPU µs per iteration of each, by client count.
    private func measureAll(
        api: BenchAPI, target: BenchTarget, pids: [Int32], clientCounts: [Int], register: Int, adminKey: String?
    ) async throws -> [Int: [Iteration: Double]] {
        var perCount: [Int: [Iteration: Double]] = [:]
        let where_ = server == nil ? "started: pid \(pids[0]), LOG_LEVEL=\(serverLogLevel)" : "server pids \(pids.isEmpty ? "not given" : pids.map(String.init).joined(separator: ","))"
        print("latchkey bench: \(target.base) (\(where_))\(pin ? ", server pinned to core 0, load generator to cores 1–\(CPUAffinity.coreCount - 1)" : ""), \(client.rawValue) client, registering \(register) accounts…")
        let loginUsers = try await seed(api: api, origin: target.origin, count: register, keep: clientCounts.max() ?? 1)
        func cpu() -> (server: Double, postgres: Double) {
            (pids.reduce(0) { $0 + ProcessStats.seconds(of: $1) },
             postgresCPU ? ProcessStats.processes(named: "postgres").reduce(0) { $0 + ProcessStats.seconds(of: $1) } : 0)
        }
        print("what            clients    done     per s  p50 ms  p99 ms  server CPU µs/each\(postgresCPU ? "  postgres CPU µs/each" : "")")
        for count in clientCounts {
            var perLogin: [Iteration: Double] = [:]
            for iteration in [Iteration.login] + (registration ? [.registration] : []) + (oidc ? [.oidc] : [])
                + (recovery ? [.recovery] : []) + (floor || limit ? [.floor] : []) + (forwardAuth ? [.forwardAuth, .forwardAuthFloor] : []) {
                let before = cpu()
                let result = try await measure(
                    api: api, target: target, users: Array(loginUsers.prefix(count)), iteration: iteration, adminKey: adminKey)
                let after = cpu()
                let logins = Double(max(result.latencies.count, 1))
                perLogin[iteration] = (after.server - before.server) / logins * 1e6
                let serverCPU = pids.isEmpty ? "-" : String(format: "%.0f", (after.server - before.server) / logins * 1e6)
                let postgres = postgresCPU ? String(format: "  %21.0f", (after.postgres - before.postgres) / logins * 1e6) : ""
                print(String(
                    format: "%@  %7d  %6d  %8.1f  %6.2f  %6.2f  %19@%@", iteration.label, count, result.latencies.count,
                    Double(result.latencies.count) / result.elapsed, percentile(result.latencies, 0.50) * 1000,
                    percentile(result.latencies, 0.99) * 1000, serverCPU, postgres))
            }
            if let login = perLogin[.login], let flow = perLogin[.oidc], login > 0, !pids.isEmpty {
                print(String(format: "ratio           %7d  server CPU per OpenID Connect flow / login: %.2f×", count, flow / login))
            }
            if let login = perLogin[.login], let flow = perLogin[.recovery], login > 0, !pids.isEmpty {
                print(String(format: "ratio           %7d  server CPU per recovery / login: %.2f×", count, flow / login))
            }
            if let check = perLogin[.forwardAuth], let floor = perLogin[.forwardAuthFloor], floor > 0, !pids.isEmpty {
                print(String(format: "ratio           %7d  server CPU per forward-auth check / floor (one healthz): %.2f×", count, check / floor))
            }
            if let login = perLogin[.login], let floor = perLogin[.floor], floor > 0, !pids.isEmpty {
                print(String(format: "ratio           %7d  server CPU per login / floor: %.2f×", count, login / floor))
                if let registration = perLogin[.registration] {
                    print(String(format: "ratio           %7d  server CPU per registration / floor: %.2f×", count, registration / floor))
                }
            }
            perCount[count] = perLogin
        }
        return perCount
    }

    /// What one client does per measured iteration.
    enum Iteration: Hashable {
        /// Options, SoftAuthenticator signing, verify.
        case login
        /// Options, a new passkey from SoftAuthenticator, verify: a new account (and session) each time.
        case registration
        /// The same signing, between two GET /healthz: what two requests cost the server with the same pacing.
        case floor
        /// A login, then the OpenID Connect authorization, token and UserInfo requests (`--oidc`).
        case oidc
        /// An operator's recovery grant, its exchange, and a passkey added with the restricted session (`--recovery`).
        case recovery
        /// One forward-auth check with a signed-in session's cookie, as a proxy asks it (`--forward-auth`).
        case forwardAuth
        /// One GET /healthz: the forward-auth check's floor, the same one request that costs the server nothing but HTTP.
        case forwardAuthFloor

        var label: String {
            switch self {
            case .login: "login         "
            case .registration: "registration  "
            case .floor: "floor (healthz)"
            case .oidc: "oidc flow     "
            case .recovery: "recovery      "
            case .forwardAuth: "forward-auth  "
            case .forwardAuthFloor: "floor (1 req.)"
            }
        }

        /// Login options as the server would send them, with a fresh challenge: what the floor signs.
        static func floorOptions(origin: String) -> PublicKeyCredentialRequestOptionsJSON {
            PublicKeyCredentialRequestOptionsJSON(
                challenge: Base64URL.encode((0..<32).map { _ in UInt8.random(in: 0...255) }), timeout: 300_000,
                rpId: URL(string: origin)?.host ?? "localhost", allowCredentials: [], userVerification: "required")
        }
    }

    /// Registers `count` accounts; returns the authenticators of the first `keep`, for logging in.
    private func seed(api: BenchAPI, origin: String, count: Int, keep: Int) async throws -> [SoftAuthenticator] {
        let kept = (0..<keep).map { _ in SoftAuthenticator(store: InMemoryCredentialStore()) }
        let workers = 16
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var index = worker
                    while index < count {
                        let authenticator = index < keep ? kept[index] : SoftAuthenticator(store: InMemoryCredentialStore())
                        try await api.register(displayName: "bench-\(index)", authenticator: authenticator, origin: origin)
                        index += workers
                    }
                }
            }
            try await group.waitForAll()
        }
        return kept
    }

    private struct Measurement {
        var latencies: [Double]
        var elapsed: Double
    }

    private func measure(
        api: BenchAPI, target: BenchTarget, users: [SoftAuthenticator], iteration: Iteration, adminKey: String?
    ) async throws -> Measurement {
        let origin = target.origin
        if client == .lean {
            let start = Date()
            let latencies = try await LeanLoadGenerator(target: target, adminKey: adminKey)
                .run(users: users, until: start + duration, iteration: iteration)
            return Measurement(latencies: latencies, elapsed: Date().timeIntervalSince(start))
        }
        let start = ContinuousClock.now
        let end = start + .milliseconds(Int(duration * 1000))
        let latencies = try await withThrowingTaskGroup(of: [Double].self) { group in
            for user in users {
                group.addTask {
                    var samples: [Double] = []
                    while ContinuousClock.now < end {
                        let began = ContinuousClock.now
                        switch iteration {
                        case .login: try await api.login(authenticator: user, origin: origin)
                        case .registration:
                            // A new authenticator each time, as in the lean client.
                            try await api.register(
                                displayName: "bench-new", authenticator: SoftAuthenticator(store: InMemoryCredentialStore()), origin: origin)
                        case .floor: try await api.floor(authenticator: user, origin: origin)
                        case .oidc: throw ValidationError("--oidc runs with the lean client")
                        case .recovery: throw ValidationError("--recovery runs with the lean client")
                        case .forwardAuth, .forwardAuthFloor: throw ValidationError("--forward-auth runs with the lean client")
                        }
                        samples.append(Self.seconds(ContinuousClock.now - began))
                    }
                    return samples
                }
            }
            return try await group.reduce(into: [Double]()) { $0 += $1 }
        }
        return Measurement(latencies: latencies, elapsed: Self.seconds(ContinuousClock.now - start))
    }

    /// The benchmark client's secret (`BenchOIDCClient`): the database is the benchmark's own.
    static let oidcSecret = "lk_client_bench-not-a-secret-only-for-measuring-00"

    private static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    private func percentile(_ values: [Double], _ p: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * p).rounded(.down)))]
    }
}

/// The API calls the benchmark makes.
struct BenchAPI: Sendable {
    let http: HTTPClient
    let base: String

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    private func post(_ path: String, body: Data?, status expected: Int) async throws -> Data {
        try await send(.POST, path, body: body, status: expected)
    }

    private func send(_ method: HTTPMethod, _ path: String, body: Data?, status expected: Int) async throws -> Data {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        let response = try await http.execute(request, timeout: .seconds(30))
        let data = Data(buffer: try await response.body.collect(upTo: 1 << 20))
        guard Int(response.status.code) == expected else {
            throw Failure(description: "\(path) answered \(response.status.code): \(String(decoding: data, as: UTF8.self))")
        }
        return data
    }

    private struct Options<T: Decodable>: Decodable { let publicKey: T }

    func register(displayName: String, authenticator: SoftAuthenticator, origin: String) async throws {
        let optionsData = try await post("/api/registration/options", body: try JSONEncoder().encode(["displayName": displayName]), status: 200)
        let options = try JSONDecoder().decode(Options<PublicKeyCredentialCreationOptionsJSON>.self, from: optionsData).publicKey
        let credential = try authenticator.makeCredential(options, origin: origin)
        _ = try await post("/api/registration/verify", body: try JSONEncoder().encode(["credential": credential]), status: 201)
    }

    func login(authenticator: SoftAuthenticator, origin: String) async throws {
        let optionsData = try await post("/api/login/options", body: nil, status: 200)
        let options = try JSONDecoder().decode(Options<PublicKeyCredentialRequestOptionsJSON>.self, from: optionsData).publicKey
        let credential = try authenticator.getAssertion(options, origin: origin)
        _ = try await post("/api/login/verify", body: try JSONEncoder().encode(["credential": credential]), status: 200)
    }

    /// A login's client-side work (decoding options, signing, encoding the response) around two requests
    /// that do nothing on the server.
    func floor(authenticator: SoftAuthenticator, origin: String) async throws {
        _ = try await send(.GET, "/healthz", body: nil, status: 200)
        let options = BenchCommand.Iteration.floorOptions(origin: origin)
        let credential = try authenticator.getAssertion(
            try JSONDecoder().decode(PublicKeyCredentialRequestOptionsJSON.self, from: try JSONEncoder().encode(options)), origin: origin)
        _ = try JSONEncoder().encode(["credential": credential])
        _ = try await send(.GET, "/healthz", body: nil, status: 200)
    }
}

/// `latchkey serve` started by the benchmark from this same executable.
final class BenchServer: @unchecked Sendable {
    let process: Process
    let base: String
    let database: String
    var pid: Int32 { process.processIdentifier }

    private init(process: Process, base: String, database: String) {
        self.process = process
        self.base = base
        self.database = database
    }

    /// Starts `latchkey serve --port 0` and reads the port the kernel gave it from the line it prints.
    /// A port picked at random here collided about one run in four with the benchmark's own client sockets
    /// of the previous run, still in TIME_WAIT in the same range (issue 36). Its output goes to a file in
    /// the temporary directory, whose last lines are the error when it does not start.
    /// The origin the benchmark's passkeys belong to: fixed, since the port is not known in advance (an
    /// origin is a string the client data carries; nothing is fetched from it).
    static let origin = "http://localhost"

    /// `recovery`: every recovery adds a passkey to its account, so the accounts may hold the most passkeys
    /// the setting allows, and the recovery limits are raised as the rate limit is.
    static func start(database: String, logLevel: String, oidc: Bool = false, recovery: Bool = false, forwardAuth: Bool = false) throws -> BenchServer {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        // The load comes from one address at thousands of requests a second: the limit is raised far
        // above that, not switched off, so the limiter's cost is part of what is measured.
        process.arguments = [
            "serve", "--port", "0", "--origin", origin, "--database", database, "--session-ttl", "600", "--rate-limit", "1000000000",
        ] + (oidc ? ["--oidc", "--signup", "open"] : []) + (recovery ? ["--max-passkeys-per-account", "10000"] : [])
            + (forwardAuth ? ["--forward-auth-rule", "* signed-in"] : [])
        var environment = ProcessInfo.processInfo.environment
        environment["LOG_LEVEL"] = logLevel
        process.environment = environment
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-bench-serve-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil), let output = try? FileHandle(forWritingTo: log) else {
            throw BenchAPI.Failure(description: "cannot create \(log.path) for the server's output")
        }
        defer { try? output.close() }
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let deadline = Date() + 30
        while Date() < deadline {
            if let port = listeningPort(in: log) {
                try? FileManager.default.removeItem(at: log)
                return BenchServer(process: process, base: "http://localhost:\(port)", database: database)
            }
            guard process.isRunning else { break }
            Thread.sleep(forTimeInterval: 0.05)
        }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        let lines = (try? String(contentsOf: log, encoding: .utf8))?.split(separator: "\n").suffix(10).joined(separator: "\n") ?? ""
        try? FileManager.default.removeItem(at: log)
        throw BenchAPI.Failure(description: "latchkey serve did not start (exit \(process.terminationStatus)); its last words:\n\(lines)")
    }

    /// The port in `latchkey serve: listening on http://HOST:PORT`, once the server has printed it.
    static func listeningPort(in log: URL) -> Int? {
        guard let text = try? String(contentsOf: log, encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("latchkey serve: listening on http://") {
            if let port = line.split(separator: ":").last.flatMap({ Int($0) }) { return port }
        }
        return nil
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}
