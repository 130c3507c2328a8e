import Foundation
import LatchkeyDatabase
import Logging
import NIOPosix

/// `latchkey migrate`: where a database's schema is, what this binary would change in it (`plan`, which
/// only reads), and applying that (`apply`, the same `Migrations.run` that `latchkey serve` runs at start).
/// Every failure is a `ServerConfiguration.Invalid` with one sentence, as `serve` reports them.
package enum MigrationConsole {
    /// One version the database lacks: its number, what it changes, and the statements it runs there.
    package struct Step: Sendable {
        package let version: Int
        package let summary: String
        package let statements: [String]
    }

    /// A database's schema against this binary's.
    package struct Plan: Sendable {
        /// The database, without its password.
        package let database: String
        /// "SQLite" or "PostgreSQL".
        package let flavor: String
        /// The newest version applied to it (0: none, a new database).
        package let current: Int
        /// The newest version this binary knows.
        package let known: Int
        /// What it lacks, in the order they would be applied.
        package let steps: [Step]
    }

    /// Reads the database's schema version and lists the migrations it lacks, changing nothing: a SQLite
    /// file is opened read-only, and PostgreSQL is only read from.
    package static func plan(configuration: ServerConfiguration) async throws -> Plan {
        let connections = try open(configuration, readOnly: true)
        do {
            let plan = try await plan(connections, database: configuration.database)
            try? await connections.shutdown()
            return plan
        } catch {
            try? await connections.shutdown()
            throw error
        }
    }

    /// Applies the migrations the database lacks (`Migrations.run`) and answers what was applied: the plan
    /// read just before (another instance may have applied some of it meanwhile; none is applied twice).
    package static func apply(configuration: ServerConfiguration) async throws -> Plan {
        let connections = try open(configuration, readOnly: false)
        do {
            let plan = try await plan(connections, database: configuration.database)
            if !plan.steps.isEmpty {
                do {
                    var logger = Logger(label: "latchkey-migrate")
                    logger.logLevel = .critical
                    try await configuration.migrate(connections, logger: logger, eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
                } catch let newer as Migrations.NewerSchema {
                    throw ServerConfiguration.Invalid(description: newer.sentence(database: configuration.database))
                } catch {
                    throw ServerConfiguration.Invalid(
                        description: "the database \(configuration.database) cannot be migrated (\(DatabaseFailure.summary(error)))")
                }
            }
            try? await connections.shutdown()
            return plan
        } catch {
            try? await connections.shutdown()
            throw error
        }
    }

    private static func open(_ configuration: ServerConfiguration, readOnly: Bool) throws -> DatabaseConnections {
        // `serve` would make a new database at a path that does not exist; an upgrade tool given a wrong
        // path says so instead.
        if case .sqlite(let path) = configuration.database, !FileManager.default.fileExists(atPath: path) {
            throw ServerConfiguration.Invalid(
                description: "there is no SQLite database at \(path): check --database (latchkey serve creates a new one there)")
        }
        var logger = Logger(label: "latchkey-migrate")
        logger.logLevel = .critical
        do {
            return try DatabaseConnections.open(
                configuration.database, limits: configuration.databaseLimits, logger: logger,
                eventLoopGroup: MultiThreadedEventLoopGroup.singleton, sqliteReadOnly: readOnly)
        } catch {
            throw ServerConfiguration.Invalid(
                description: "the database \(configuration.database) cannot be opened (\(DatabaseFailure.summary(error)))")
        }
    }

    private static func plan(_ connections: DatabaseConnections, database: DatabaseLocation) async throws -> Plan {
        let flavor = connections.flavor
        let current: Int
        do {
            current = try await connections.withConnection { try await Migrations.versionReadingOnly(of: $0, flavor: flavor) }
        } catch {
            throw ServerConfiguration.Invalid(description: "the database \(database) cannot be read (\(DatabaseFailure.summary(error)))")
        }
        guard current <= Migrations.latestVersion else {
            throw ServerConfiguration.Invalid(
                description: Migrations.NewerSchema(found: current, known: Migrations.latestVersion).sentence(database: database))
        }
        return Plan(
            database: "\(database)", flavor: flavor == .sqlite ? "SQLite" : "PostgreSQL", current: current, known: Migrations.latestVersion,
            steps: Migrations.pending(after: current).map { Step(version: $0.version, summary: $0.summary, statements: $0.statements(flavor)) })
    }

    /// The plan for people: the versions, then each step's summary and its SQL (indented, each statement
    /// ended by a semicolon). `applied`: the steps were applied, rather than only shown.
    package static func text(_ plan: Plan, applied: Bool) -> String {
        var lines = [
            "Database: \(plan.database) (\(plan.flavor))",
            "Schema version: \(plan.current == 0 ? "none (a new database)" : "\(plan.current)"); this latchkey knows up to \(plan.known).",
        ]
        guard !plan.steps.isEmpty else {
            lines.append("Nothing to do: the schema is up to date.")
            return lines.joined(separator: "\n")
        }
        let count = "\(plan.steps.count) migration\(plan.steps.count == 1 ? "" : "s")"
        lines.append(applied ? "Applied \(count):" : "\(count) to apply (dry run: nothing was changed):")
        for step in plan.steps {
            lines.append("")
            lines.append("Version \(step.version): \(step.summary)")
            if step.statements.isEmpty {
                lines.append("    -- no statements on \(plan.flavor); the version is only recorded")
            }
            for statement in step.statements {
                lines.append(contentsOf: (statement + ";").split(separator: "\n", omittingEmptySubsequences: false).map { "    " + $0 })
            }
        }
        if applied {
            lines.append("")
            lines.append("The database is at schema version \(plan.known) now.")
        }
        return lines.joined(separator: "\n")
    }
}
