import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `latchkey serve` as a user starts it: bad configuration stops start-up with one sentence and a
/// non-zero exit; a running server answers and shuts down cleanly on SIGTERM.
@Suite("latchkey serve", .serialized)
struct ServeCommandTests {
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test("bad configuration exits 2 with one clear sentence", arguments: [
        (["--database", "mysql://x"], "neither sqlite"),
        (["--origin", "https://evil.example"], "does not belong to the RP ID"),
        (["--user-verification", "sometimes"], "--user-verification"),
        (["--port", "70000"], "port"),
        (["--threads=-1"], "threads"),
        (["--threads", "1000"], "threads"),
        (["--rate-limit=-1"], "rate limit"),
        (["--sign-count", "ignore"], "--sign-count"),
        (["--database", "postgres://nobody@127.0.0.1:1/none"], "cannot be opened"),
        (["--prot", "9000"], "--prot is not a flag of latchkey serve (did you mean --port?)"),
        (["--rate-limit", "many"], "--rate-limit must be a whole number, not \"many\""),
        (["--trust-forwarded-for=yes"], "--trust-forwarded-for takes no value"),
        (["--introspection-secret", "x"], "give --introspection-secret-file"),
    ])
    func badConfiguration(arguments: [String], fragment: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let run = try LatchkeyBinary.run(["serve", "--port", "\(Self.freePort())", "--database", "sqlite:\(directory.path)/db.sqlite"] + arguments)
        #expect(run.status == 2, "\(arguments): \(run.stderr)")
        #expect(run.stderr.contains(fragment), "\(arguments): \(run.stderr)")
        #expect(run.stderr.split(separator: "\n").count == 1, "one sentence: \(run.stderr)")
    }

    @Test("a bad variable and a bad value in the file exit 2 with one sentence that names them")
    func badVariableAndFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let flags = ["serve", "--port", "\(Self.freePort())", "--database", "sqlite:\(directory.path)/db.sqlite"]
        let file = directory.appendingPathComponent("latchkey.toml")
        try Data("session-ttl = \"1h\"\n".utf8).write(to: file)
        for (environment, fragment) in [
            (["LATCHKEY_SESSION_TTL": "1h"], "LATCHKEY_SESSION_TTL must be a whole number of seconds, not \"1h\""),
            (["LATCHKEY_TRUST_FORWARDED_FOR": "yes"], "LATCHKEY_TRUST_FORWARDED_FOR must be true or false, not \"yes\""),
            (["LATCHKEY_CONFIG": file.path], "the setting session-ttl in \(file.path) must be a whole number of seconds, not a string"),
            (["LATCHKEY_SESSION_TTL": "0"], "session lifetime must be between 1 and"),
        ] {
            let run = try LatchkeyBinary.run(flags, environment: environment)
            #expect(run.status == 2, "\(environment): \(run.stderr)")
            #expect(run.stderr.lowercased().contains(fragment.lowercased()), "\(environment): \(run.stderr)")
            #expect(run.stderr.split(separator: "\n").count == 1, "one sentence: \(run.stderr)")
        }
    }

    @Test("serve --help lists every flag with its help, and exits 0")
    func help() throws {
        for arguments in [["serve", "--help"], ["serve", "--port", "1", "-h"], ["help", "serve"]] {
            let run = try LatchkeyBinary.run(arguments)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            for flag in ["--config", "--port", "--origin", "--introspection-secret-file", "--access-tokens", "--compat", "LATCHKEY_PORT", "LOG_LEVEL"] {
                #expect(run.stdout.contains(flag), "\(arguments): \(flag) in \(run.stdout)")
            }
        }
    }

    @Test("--port 0: the kernel chooses, the line on standard output names the port, and the server answers there; without --origin it is refused (issue 36)")
    func portZero() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let refused = try LatchkeyBinary.run(["serve", "--port", "0", "--database", "sqlite:\(directory.path)/db.sqlite"])
        #expect(refused.status == 2 && refused.stderr.contains("--origin"), "\(refused.stderr)")

        let output = directory.appendingPathComponent("stdout.txt")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        let server = Process()
        server.executableURL = LatchkeyBinary.url
        server.arguments = ["serve", "--port", "0", "--origin", "http://localhost", "--database", "sqlite:\(directory.path)/db.sqlite"]
        server.standardOutput = handle
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            if server.isRunning {
                server.terminate()
                server.waitUntilExit()
            }
        }
        var port: Int?
        for _ in 0..<300 where port == nil {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            port = text.split(separator: "\n").first { $0.hasPrefix("latchkey serve: listening on http://127.0.0.1:") }
                .flatMap { $0.split(separator: ":").last }.flatMap { Int($0) }
            if port == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        let chosen = try #require(port, "no listening line: \((try? String(contentsOf: output, encoding: .utf8)) ?? "")")
        #expect(chosen > 0)
        let url = try #require(URL(string: "http://127.0.0.1:\(chosen)/healthz"))
        let (data, _) = try await URLSession.shared.data(from: url)
        #expect(String(decoding: data, as: UTF8.self).contains("ok"))
    }

    @Test("serves on the given port, refuses a second server on it, and stops on SIGTERM")
    func serveAndStop() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = Self.freePort()
        let server = Process()
        server.executableURL = LatchkeyBinary.url
        server.arguments = ["serve", "--port", "\(port)"]
        server.currentDirectoryURL = directory
        server.standardOutput = Pipe()
        server.standardError = Pipe()
        try server.run()
        defer { if server.isRunning { server.terminate() } }

        var health: String?
        for _ in 0..<100 where health == nil {
            if let url = URL(string: "http://127.0.0.1:\(port)/healthz"), let (data, _) = try? await URLSession.shared.data(from: url) {
                health = String(decoding: data, as: UTF8.self)
            }
            if health == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(health?.contains("ok") == true)
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("latchkey.sqlite").path), "the default database is ./latchkey.sqlite")

        let second = try LatchkeyBinary.run(["serve", "--port", "\(port)", "--database", "sqlite:\(directory.path)/other.sqlite"])
        #expect(second.status == 2)
        #expect(second.stderr.contains("already in use"), "\(second.stderr)")

        kill(server.processIdentifier, SIGTERM)
        let deadline = Date() + 20
        while server.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!server.isRunning, "the server stops on SIGTERM")
        #expect(server.terminationStatus == 0, "a graceful stop exits 0")
    }
}
