import Foundation
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
}
