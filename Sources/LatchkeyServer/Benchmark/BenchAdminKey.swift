import Foundation
import LatchkeyDatabase
import Logging

/// The admin key `latchkey bench --recovery` issues recovery grants with: a `recovery` key made straight
/// in the benchmark's own database before its server starts (an operator's key would come from
/// `latchkey admin keys create`). For benchmarks only, like `BulkAccounts`.
@_spi(Benchmark)
public enum BenchAdminKey {
    /// Migrates the database at `location` if needed, stores a new recovery key and returns its text.
    public static func create(in location: DatabaseLocation, logger: Logger) async throws -> String {
        let connections = try DatabaseConnections.open(location, logger: logger)
        do {
            try await Migrations.run(on: connections)
            let secret = AdminKeySecret.generate()
            let now = Date()
            let record = AdminKeyRecord(
                id: secret.id, secretHash: SecretDigest.of(secret.text), scope: .recovery, name: "latchkey bench", createdAt: now,
                createdBy: "bench")
            try await Store(connections: connections).adminKeys.insert(record, event: AuditOrigin(actor: "bench").event(
                .adminKeyCreated, at: now, account: nil, detail: ["keyId": .text(record.id), "scope": .text("recovery"), "name": .text(record.name)]))
            try await connections.shutdown()
            return secret.text
        } catch {
            try? await connections.shutdown()
            throw error
        }
    }
}
