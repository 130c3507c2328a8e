import Foundation
import LatchkeyDatabase
import Logging
import SQLKit

/// A million accounts in seconds, for `latchkey bench --accounts 1000000`: a login's cost must not grow
/// with the number of accounts, and registering a million through the API would take hours. The rows
/// are made inside the database by one statement per batch (no values cross the connection): accounts
/// with random 64-byte user handles and UUID-shaped ids, each with one passkey whose id is 16 random
/// bytes and whose public key is a fixed placeholder — nobody can log in with them, exactly as with
/// other people's passkeys; the benchmark logs in with accounts it registered through the API.
/// For benchmarks only (`@_spi(Benchmark)`), never part of the server's API: only `latchkey bench` and
/// its tests call it, nothing the server runs does. It lives in this module, apart from `Storage/`,
/// because it needs the storage's internal types (`DatabaseConnections`, `Migrations`, `StoreStatement`),
/// which moving it out would have to publish.
@_spi(Benchmark)
public enum BulkAccounts {
    /// Migrates the database at `location` if needed and adds `count` accounts; returns how long it took.
    public static func insert(count: Int, into location: DatabaseLocation, logger: Logger) async throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        try await withConnections(to: location, timeout: 600, logger: logger) { connections in
            try await Migrations.run(on: connections)
            let batch = 50_000
            var first = 0
            while first < count {
                let (low, last) = (first, min(first + batch, count) - 1)
                try await connections.transaction { db in
                    for statement in statements(connections.flavor) {
                        try await db.run(StoreQuery(statement, .integer(Int64(low)), .integer(Int64(last)), .milliseconds(Date())))
                    }
                }
                first = last + 1
                logger.info("bulk accounts", metadata: ["inserted": "\(first)"])
            }
            // Indexed for the admin search now, as a database that grew slowly would be (SQLite: the
            // server's `SearchIndexing` would otherwise spend its first minute on a million pending rows).
            try await Store(connections: connections).indexAllPendingNames()
            // Fresh statistics, as a database that grew slowly would have.
            try await connections.withConnection { db in try await db.raw("ANALYZE").run() }
            // SQLite: the batches went through the write-ahead log; write it back so the file is the database.
            try await Store(connections: connections).truncateLog()
        }
        return clock.now - start
    }

    /// How many accounts the database at `location` already holds (0 for a new one; it is migrated first).
    /// The benchmark's figures are for the number of accounts it was asked for, and its bulk ids start
    /// at the same numbers every run, so it refuses a database that is not empty (issue 16's note: a
    /// second run on the same PostgreSQL database stopped with a bare "PSQLError – Generic description").
    public static func existing(in location: DatabaseLocation, logger: Logger) async throws -> Int {
        try await withConnections(to: location, timeout: 30, logger: logger) { connections in
            try await Migrations.run(on: connections)
            return try await connections.withConnection { db in
                try await db.raw("SELECT count(*) AS n FROM accounts").first()?.decode(column: "n", as: Int.self) ?? 0
            }
        }
    }

    /// The database's size on disk in bytes: the SQLite file and its log, or PostgreSQL's database.
    public static func size(of location: DatabaseLocation, logger: Logger) async throws -> Int64 {
        switch location {
        case .sqlite(let path):
            return ["", "-wal"].reduce(Int64(0)) { total, suffix in
                total + ((try? FileManager.default.attributesOfItem(atPath: path + suffix)[.size] as? NSNumber)?.int64Value ?? 0)
            }
        case .sqliteMemory:
            return 0
        case .postgres:
            return try await withConnections(to: location, timeout: 30, logger: logger) { connections in
                try await connections.withConnection { db in
                    try await db.raw("SELECT pg_database_size(current_database()) AS size").first()?.decode(column: "size", as: Int64.self) ?? 0
                }
            }
        }
    }

    /// One connection to `location` for `body`, shut down afterwards whether `body` threw or not.
    private static func withConnections<Result>(
        to location: DatabaseLocation, timeout: TimeInterval, logger: Logger, _ body: (DatabaseConnections) async throws -> Result
    ) async throws -> Result {
        let connections = try DatabaseConnections.open(location, limits: .init(poolSize: 1, timeout: timeout), logger: logger)
        let result: Result
        do {
            result = try await body(connections)
        } catch {
            try? await connections.shutdown()
            throw error
        }
        try await connections.shutdown()
        return result
    }

    /// Accounts $1…$2 (numbers make their ids) and their passkeys, created at $3.
    private static func statements(_ flavor: SQLFlavor) -> [StoreStatement] {
        flavor == .sqlite ? sqlite : postgres
    }

    private static let sqlite = [
        StoreStatement("""
            WITH RECURSIVE n(i) AS (SELECT $1 UNION ALL SELECT i + 1 FROM n WHERE i < $2)
            INSERT INTO accounts (id, user_handle, display_name, credo, created_at, updated_at)
            SELECT printf('%08x-0000-4000-8000-%012x', i, i), randomblob(64), 'bulk ' || i, '', $3, $3 FROM n
            """),
        StoreStatement("""
            WITH RECURSIVE n(i) AS (SELECT $1 UNION ALL SELECT i + 1 FROM n WHERE i < $2)
            INSERT INTO credentials (\(SQL.credentialColumns))
            SELECT randomblob(16), printf('%08x-0000-4000-8000-%012x', i, i), X'\(placeholderKey)', -7, 0, 'internal', zeroblob(16),
                   'none', 1, 1, 1, 'bulk', $3, NULL, 0, NULL, NULL, 1, NULL FROM n
            """),
    ]

    private static let postgres = [
        StoreStatement("""
            INSERT INTO accounts (id, user_handle, display_name, credo, created_at, updated_at)
            SELECT lpad(to_hex(i), 8, '0') || '-0000-4000-8000-' || lpad(to_hex(i), 12, '0'),
                   sha512(uuid_send(gen_random_uuid())), 'bulk ' || i, '', $3, $3
            FROM generate_series($1::bigint, $2::bigint) AS i
            """),
        StoreStatement("""
            INSERT INTO credentials (\(SQL.credentialColumns))
            SELECT uuid_send(gen_random_uuid()), lpad(to_hex(i), 8, '0') || '-0000-4000-8000-' || lpad(to_hex(i), 12, '0'),
                   '\\x\(placeholderKey)'::bytea, -7, 0, 'internal', '\\x00000000000000000000000000000000'::bytea,
                   'none', 1, 1, 1, 'bulk', $3, NULL, 0, NULL, NULL, 1, NULL
            FROM generate_series($1::bigint, $2::bigint) AS i
            """),
    ]

    /// A COSE EC2 P-256 key's size and shape (77 bytes, in hex), with no usable point: a placeholder.
    private static let placeholderKey = "a5010203262001215820" + String(repeating: "11", count: 32) + "225820" + String(repeating: "22", count: 32)
}
