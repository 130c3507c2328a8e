import Foundation
@testable import LatchkeyDatabase
@testable import LatchkeyRuntime
import Testing
@testable import LatchkeyServer

/// `/readyz`, and a database that a newer Latchkey migrated (issue 33).
@Suite("Readiness and schema versions")
struct ReadinessTests {
    static func scratchDatabase() throws -> (DatabaseLocation, URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-readiness-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return (.sqlite(path: directory.appendingPathComponent("db.sqlite").path), directory)
    }

    @Test("/readyz answers ready with the schema version; one the binary does not run on is 503 not_ready")
    func readiness() async throws {
        try await TestServer.withApplication { api, latchkey in
            let ready = try await api.send(.get, "/readyz")
            #expect(ready.status == .ok, "\(ready.text)")
            #expect(ready.json?["status"] as? String == "ready")
            #expect(ready.json?["schemaVersion"] as? Int == Migrations.latestVersion)
            // Another instance, newer, migrated the shared database further.
            try await latchkey.store.connections.withConnection { db in
                try await db.raw("INSERT INTO schema_migrations (version, applied_at) VALUES (\(bind: Migrations.latestVersion + 1), 0)").run()
            }
            let notReady = try await api.send(.get, "/readyz")
            #expect(notReady.status == .serviceUnavailable && notReady.errorCode == "not_ready", "\(notReady.text)")
            #expect(notReady.headers[.retryAfter] != nil)
        }
    }

    @Test("a database migrated by a newer Latchkey is refused at start with one sentence naming both versions")
    func newerSchemaRefused() async throws {
        let (location, directory) = try Self.scratchDatabase()
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = TestServer.configuration()
        configuration.database = location
        let first = try await Latchkey.open(configuration: configuration, eventLoopGroup: ServerEventLoops.group(threads: 1))
        try await first.store.connections.withConnection { db in
            try await db.raw("INSERT INTO schema_migrations (version, applied_at) VALUES (\(bind: Migrations.latestVersion + 3), 0)").run()
        }
        try await first.connections.shutdown()
        do {
            _ = try await Latchkey.open(configuration: configuration, eventLoopGroup: ServerEventLoops.group(threads: 1))
            Issue.record("a newer schema was opened")
        } catch let invalid as ServerConfiguration.Invalid {
            #expect(invalid.description.contains("newer Latchkey"), "\(invalid)")
            #expect(invalid.description.contains("schema version \(Migrations.latestVersion + 3)"), "\(invalid)")
            #expect(invalid.description.contains("up to \(Migrations.latestVersion)"), "\(invalid)")
        }
    }
}
