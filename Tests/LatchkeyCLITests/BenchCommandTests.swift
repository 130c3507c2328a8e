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
}

