import Foundation
@testable import LatchkeyDatabase
@_spi(Benchmark) import LatchkeyServer
import Logging
import Testing

@Suite("latchkey bench")
struct BenchCommandTests {
    @Test("a --database that already holds accounts is refused with exit 2 naming the count, and left as it was")
    func nonEmptyDatabase() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-bench-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let location = DatabaseLocation.sqlite(path: directory.appendingPathComponent("bench.sqlite").path)
        let logger = Logger(label: "test")
        #expect(try await BulkAccounts.existing(in: location, logger: logger) == 0)
        _ = try await BulkAccounts.insert(count: 3, into: location, logger: logger)
        #expect(try await BulkAccounts.existing(in: location, logger: logger) == 3)

        let run = try LatchkeyBinary.run(["bench", "--accounts", "10", "--clients", "1", "--duration", "1", "--database", location.description])
        #expect(run.status == 2)
        #expect(run.stderr.contains("already holds 3 accounts"), "\(run.stderr)")
        #expect(try await BulkAccounts.existing(in: location, logger: logger) == 3)
    }

    @Test("a server that does not start: the error carries the server's own words (issue 36)")
    func serverThatDoesNotStart() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-bench-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // A key file others may read: latchkey serve refuses to start and says why.
        let keyFile = directory.appendingPathComponent("latchkey.key")
        try Data("not a key\n".utf8).write(to: keyFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyFile.path)
        let run = try LatchkeyBinary.run([
            "bench", "--accounts", "4", "--clients", "1", "--duration", "1", "--database", "sqlite:\(directory.path)/bench.sqlite",
        ])
        #expect(run.status != 0)
        #expect(run.stderr.contains("did not start"), "\(run.stderr)")
        #expect(run.stderr.contains("readable by others"), "the server's own sentence: \(run.stderr)")
    }

    @Test("--limit's parts run through the server's storage: a login commit adds a session, a registration commit an account with its session")
    func limitParts() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-bench-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let location = DatabaseLocation.sqlite(path: directory.appendingPathComponent("bench.sqlite").path)
        let logger = Logger(label: "test")
        _ = try await BulkAccounts.insert(count: 2, into: location, logger: logger)
        #expect(BenchLimit.verifications(3, of: try BenchLimit.Signed()))

        let limit = try await BenchLimit.open(location, logger: logger)
        try await limit.loginCommits(3)
        try await limit.registrationCommits(2)
        try await limit.shutdown()
        #expect(try await BulkAccounts.existing(in: location, logger: logger) == 4)
        let connections = try DatabaseConnections.open(location, logger: logger)
        let sessions = try await connections.withConnection { db in
            try await db.raw("SELECT count(*) AS n FROM sessions").first()?.decode(column: "n", as: Int.self)
        }
        let counter = try await connections.withConnection { db in
            try await db.raw("SELECT max(sign_count) AS n FROM credentials").first()?.decode(column: "n", as: Int.self)
        }
        try await connections.shutdown()
        #expect(sessions == 5)
        #expect(counter == 3, "each login commit moves the counter by one")
    }

    @Test("latchkey bench --limit prints the limit's parts and each flow's ratio to its limit, as scripts/bench-report reads them")
    func limitRun() throws {
        let run = try LatchkeyBinary.run([
            "bench", "--limit", "--registration", "--accounts", "2", "--clients", "1", "--duration", "0.5", "--server-log-level", "warning",
        ])
        #expect(run.status == 0, "\(run.stderr)")
        for pattern in [
            #/limit +verification +[\d.]+ µs CPU/#, #/limit +login commit +[\d.]+ µs CPU/#, #/limit +registration commit +[\d.]+ µs CPU/#,
            #/ratio +1 +server CPU per login / limit \(.*= [\d.]+ µs\): [\d.]+×/#,
            #/ratio +1 +server CPU per registration / limit \(.*= [\d.]+ µs\): [\d.]+×/#,
        ] {
            #expect(run.stdout.contains(pattern), "\(run.stdout)")
        }
    }
}
