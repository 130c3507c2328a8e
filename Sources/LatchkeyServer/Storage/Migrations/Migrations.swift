import Foundation
import LatchkeyDatabase
import SQLKit

/// Versioned schema migrations, run at start-up on SQLite and PostgreSQL alike. Each version is applied
/// once, in order, inside a transaction, and recorded in `schema_migrations`; a database written by an
/// older Latchkey opens in a newer one, which applies only the versions it lacks.
enum Migrations {
    /// One version: its number, one line saying what it changes (`latchkey migrate` prints it; the
    /// doc comment of each says why), and its statements for a database's flavor. Each is a file of its own,
    /// `Migrations/MigrationNN.swift`, declaring `Migration.vN`; `all` lists them in order.
    struct Migration: Sendable {
        let version: Int
        let summary: String
        let statements: @Sendable (SQLFlavor) -> [String]
    }

    static let all: [Migration] = [
        .v1, .v2, .v3, .v4, .v5, .v6, .v7, .v8, .v9, .v10, .v11, .v12, .v13, .v14, .v15, .v17, .v18, .v19, .v20, .v21, .v22, .v23, .v24, .v25, .v26,
        .v27,
    ]

    /// The newest schema version this build knows.
    static var latestVersion: Int { all.map(\.version).max() ?? 0 }

    /// Applies every version up to `last` (all by default; tests stop early to build an older database).
    static func run(on connections: DatabaseConnections, through last: Int = latestVersion) async throws {
        // Instances that start at the same moment all get here. On PostgreSQL everything below runs under
        // one advisory lock, taken per transaction: even `CREATE TABLE IF NOT EXISTS` is not safe to race
        // there (two creators can both pass the check and one fails on the catalogue's unique index).
        // SQLite's `BEGIN IMMEDIATE` serializes the writers itself.
        try await connections.transaction { database in
            try await lock(database, flavor: connections.flavor)
            try await database.raw("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)").run()
        }
        // A database a newer Latchkey migrated has tables this one does not know how to keep right.
        let current = try await connections.withConnection { try await version(of: $0) }
        guard current <= latestVersion else { throw NewerSchema(found: current, known: latestVersion) }
        for migration in all where migration.version <= last {
            try await connections.transaction { database in
                // Checked inside the locked transaction, so instances starting together apply each version once.
                try await lock(database, flavor: connections.flavor)
                let applied = try await database.raw("SELECT version FROM schema_migrations WHERE version = \(bind: migration.version)").first()
                guard applied == nil else { return }
                for statement in migration.statements(connections.flavor) {
                    try await database.raw(SQLQueryString(statement)).run()
                }
                try await database.raw(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (\(bind: migration.version), \(bind: Timestamp.now()))").run()
            }
        }
    }

    /// The newest schema version applied to the database (0 before any).
    static func version(of database: any SQLDatabase) async throws -> Int {
        try await database.raw("SELECT max(version) AS v FROM schema_migrations").first()?.decode(column: "v", as: Int?.self) ?? 0
    }

    /// The same, reading only: 0 for a database without `schema_migrations` (which `run` would create),
    /// for `latchkey migrate --dry-run`.
    static func versionReadingOnly(of database: any SQLDatabase, flavor: SQLFlavor) async throws -> Int {
        let exists: SQLQueryString = flavor == .sqlite
            ? "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
            : "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'schema_migrations'"
        let tables = try await database.raw(exists).first()?.decode(column: "n", as: Int.self) ?? 0
        guard tables > 0 else { return 0 }
        return try await version(of: database)
    }

    /// The versions a database at schema version `current` lacks, in the order `run` applies them.
    static func pending(after current: Int) -> [Migration] {
        all.filter { $0.version > current }.sorted { $0.version < $1.version }
    }

    /// The database was migrated by a newer Latchkey than this one.
    struct NewerSchema: Error, Sendable {
        let found: Int
        let known: Int

        /// What `latchkey serve` (and `latchkey migrate`, `latchkey admin`) say about it: one sentence.
        func sentence(database: DatabaseLocation) -> String {
            """
            the database \(database) was migrated by a newer Latchkey (schema version \(found); this one knows up to \(known)): \
            run that version or a newer one, or restore the backup taken before the upgrade
            """
        }
    }

    /// Waits for the migration lock (PostgreSQL; released when the transaction ends).
    private static func lock(_ database: any SQLDatabase, flavor: SQLFlavor) async throws {
        guard flavor == .postgres else { return }
        try await database.raw("SELECT pg_advisory_xact_lock(\(bind: Int64(0x4c61_7463))) AS locked").run()
    }
}
