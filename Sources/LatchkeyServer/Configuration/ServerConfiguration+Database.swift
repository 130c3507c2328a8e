import Logging
import NIOCore

extension ServerConfiguration {
    /// The configured database, opened and migrated as `latchkey serve` opens it — also for the tools that
    /// work on it directly (`latchkey admin`, `keys rotate`) — with every failure one sentence: a URL that
    /// cannot be used, a database a newer Latchkey migrated, one that cannot be opened or migrated.
    func openMigratedDatabase(logger: Logger, eventLoopGroup: any EventLoopGroup) async throws -> DatabaseConnections {
        let connections: DatabaseConnections
        do {
            connections = try DatabaseConnections.open(database, limits: databaseLimits, logger: logger, eventLoopGroup: eventLoopGroup)
        } catch {
            throw Invalid(description: "the database URL \(database) cannot be used")
        }
        do {
            try await Migrations.run(on: connections)
        } catch let newer as Migrations.NewerSchema {
            try? await connections.shutdown()
            throw Invalid(description: newer.sentence(database: database))
        } catch {
            try? await connections.shutdown()
            throw Invalid(description: "the database \(database) cannot be opened or migrated (\(DatabaseFailure.summary(error)))")
        }
        return connections
    }
}
