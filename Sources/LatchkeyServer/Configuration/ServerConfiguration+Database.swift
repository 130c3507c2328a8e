import Foundation
import LatchkeyDatabase
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
            try await migrate(connections, logger: logger, eventLoopGroup: eventLoopGroup)
        } catch let newer as Migrations.NewerSchema {
            try? await connections.shutdown()
            throw Invalid(description: newer.sentence(database: database))
        } catch {
            try? await connections.shutdown()
            throw Invalid(description: "the database \(database) cannot be opened or migrated (\(DatabaseFailure.summary(error)))")
        }
        return connections
    }

    /// How long one migration may take on PostgreSQL: a version may build an index over every row
    /// (migration 17's trigram indexes take tens of seconds on a million accounts), far past the time-out
    /// of a request's unit of work (`databaseTimeout`, 5 s by default), which would otherwise stop the
    /// upgrade. SQLite's units of work have no time-out.
    static let migrationTimeout: TimeInterval = 600

    /// `Migrations.run`; on PostgreSQL through a connection of its own with `migrationTimeout`, opened for
    /// the migrations only (then nothing is left to do on `connections`' pool).
    func migrate(_ connections: DatabaseConnections, logger: Logger, eventLoopGroup: any EventLoopGroup) async throws {
        guard case .postgres = database else {
            try await Migrations.run(on: connections)
            return
        }
        let migrating = try DatabaseConnections.open(
            database, limits: .init(poolSize: 1, timeout: Self.migrationTimeout), logger: logger, eventLoopGroup: eventLoopGroup)
        do {
            try await Migrations.run(on: migrating)
        } catch {
            try? await migrating.shutdown()
            throw error
        }
        try await migrating.shutdown()
    }
}
