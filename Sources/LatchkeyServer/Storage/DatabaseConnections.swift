import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresKit
import SQLKit

/// The SQL dialect differences the schema has to know about. Everything else is plain SQL both accept.
enum SQLFlavor: Sendable {
    case sqlite
    case postgres

    var bytesType: String { self == .sqlite ? "BLOB" : "BYTEA" }
}

/// A pool of connections to one database, SQLite or PostgreSQL, behind one async interface: borrow a
/// connection for a unit of work, or for a transaction.
final class DatabaseConnections: Sendable {
    let flavor: SQLFlavor
    private let borrow: @Sendable () async throws -> (database: any SQLDatabase, release: @Sendable () -> Void)
    private let close: @Sendable () async throws -> Void

    private init(
        flavor: SQLFlavor,
        borrow: @escaping @Sendable () async throws -> (database: any SQLDatabase, release: @Sendable () -> Void),
        close: @escaping @Sendable () async throws -> Void
    ) {
        self.flavor = flavor
        self.borrow = borrow
        self.close = close
    }

    static func open(_ location: DatabaseLocation, logger: Logger) throws -> DatabaseConnections {
        switch location {
        case .sqlite(let path):
            return try direct(path: path, logger: logger)
        case .sqliteMemory:
            return try direct(path: ":memory:", logger: logger)
        case .postgres(let url):
            // libpq spells the scheme postgresql://; PostgresKit knows it as postgres://.
            let normalized = url.hasPrefix("postgresql://") ? "postgres://" + url.dropFirst("postgresql://".count) : url
            let configuration = try SQLPostgresConfiguration(url: normalized)
            let box = SendablePool(EventLoopGroupConnectionPool(
                source: PostgresConnectionSource(sqlConfiguration: configuration), maxConnectionsPerEventLoop: 4,
                logger: logger, on: MultiThreadedEventLoopGroup.singleton))
            return DatabaseConnections(
                flavor: .postgres,
                borrow: {
                    let connection = try await box.pool.requestConnection().get()
                    return (connection.sql(queryLogLevel: nil), { box.pool.releaseConnection(connection) })
                },
                close: { try await box.pool.shutdownAsync() })
        }
    }

    /// SQLite through Latchkey's synchronous driver (see `DirectSQLite`).
    private static func direct(path: String, logger: Logger) throws -> DatabaseConnections {
        let connection = try DirectSQLite(path: path)
        let database = DirectSQLiteDatabase(connection: connection, logger: logger, eventLoop: MultiThreadedEventLoopGroup.singleton.any())
        return DatabaseConnections(
            flavor: .sqlite,
            borrow: {
                await connection.lock.acquire()
                return (database, { connection.lock.release() })
            },
            close: {
                await connection.lock.acquire()
                connection.close()
                connection.lock.release()
            })
    }

    /// Runs `body` on one borrowed connection.
    func withConnection<R: Sendable>(_ body: (any SQLDatabase) async throws -> R) async throws -> R {
        let (database, release) = try await borrow()
        defer { release() }
        return try await body(database)
    }

    /// Runs `body` in a transaction on one connection: committed when it returns, rolled back when it throws.
    func transaction<R: Sendable>(_ body: (any SQLDatabase) async throws -> R) async throws -> R {
        try await withConnection { database in
            try await database.run(StoreQuery(flavor == .sqlite ? SQL.beginImmediate : SQL.begin))
            do {
                let result = try await body(database)
                try await database.run(StoreQuery(SQL.commit))
                return result
            } catch {
                try? await database.run(StoreQuery(SQL.rollback))
                throw error
            }
        }
    }

    func shutdown() async throws {
        try await close()
    }
}

/// AsyncKit's pool guards its state with its own lock but does not declare `Sendable`; this says so.
private struct SendablePool<Source: ConnectionPoolSource>: @unchecked Sendable {
    let pool: EventLoopGroupConnectionPool<Source>
    init(_ pool: EventLoopGroupConnectionPool<Source>) { self.pool = pool }
}
