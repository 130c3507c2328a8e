import Foundation
import LatchkeyDatabase
import Logging

/// The OpenID Connect client `latchkey bench --oidc` signs in to: registered straight in the database
/// before the server starts, first-party (no consent screen: the benchmark measures the flow, not a
/// person's click), with a known secret. For benchmarks only, like `BulkAccounts`.
@_spi(Benchmark)
public enum BenchOIDCClient {
    public static let id = "bench"
    public static let redirectURI = "http://127.0.0.1:9/callback"

    /// Migrates the database at `location` if needed and registers the client with `secret`.
    public static func register(secret: String, into location: DatabaseLocation, logger: Logger) async throws {
        let connections = try DatabaseConnections.open(location, logger: logger)
        do {
            try await Migrations.run(on: connections)
            let store = Store(connections: connections)
            let now = Date()
            let client = OIDCClientRecord(
                id: id, name: "latchkey bench", secretHash: SecretDigest.of(secret), redirectURIs: [redirectURI], postLogoutURIs: [],
                idTokenAlgorithm: "ES256", firstParty: true, scopes: OIDCScope.supported, allowedGroups: [], createdAt: now, updatedAt: now,
                createdBy: "bench")
            _ = try await store.oidcClients.insert(client, event: AuditOrigin(actor: "bench").event(.oidcClientCreated, at: now, account: nil))
        } catch {
            try? await connections.shutdown()
            throw error
        }
        try await connections.shutdown()
    }
}
