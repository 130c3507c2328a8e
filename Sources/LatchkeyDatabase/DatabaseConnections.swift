import LatchkeyRuntime
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PostgresKit
import SQLKit
import Tracing

/// The SQL dialect differences the schema has to know about. Everything else is plain SQL both accept.
package enum SQLFlavor: Sendable {
    case sqlite
    case postgres

    package var bytesType: String { self == .sqlite ? "BLOB" : "BYTEA" }

    /// OpenTelemetry's `db.system.name` for it.
    package var systemName: String { self == .sqlite ? "sqlite" : "postgresql" }
}

/// A pool of connections to one database, SQLite or PostgreSQL, behind one async interface: borrow a
/// connection for a unit of work, or for a transaction.
package final class DatabaseConnections: Sendable {
    /// How connections to PostgreSQL are pooled and how long a unit of work may take (SQLite has one
    /// connection and its own busy time-out).
    package struct Limits: Sendable {
        /// Connections to PostgreSQL in all, spread over the event loops.
        package var poolSize = 8
        /// The longest a unit of work (a statement, or a whole transaction) may take, waiting for a
        /// connection included. Past it the request ends with 503 `database_unavailable` and the
        /// connection is closed rather than reused: a database that stopped answering mid-query (killed,
        /// restarted, partitioned away) must not hold a request, or the server's shutdown, for ever.
        package var timeout: TimeInterval = 5

        package init(poolSize: Int = 8, timeout: TimeInterval = 5) {
            self.poolSize = poolSize
            self.timeout = timeout
        }

        package var timeAmount: TimeAmount { Self.timeAmount(seconds: timeout) }

        /// Seconds as NIO's time amount without a trap: `Limits` is the engine's own type now, made by callers
        /// other than `ServerConfiguration.validate()` (which keeps serve's time-out within 0.1–600 s), so NaN,
        /// infinity or 1e308 from one of them is the longest amount and a negative one none, never a crash.
        package static func timeAmount(seconds: TimeInterval) -> TimeAmount {
            let milliseconds = (seconds * 1000).rounded(.down)
            if milliseconds.isNaN { return .milliseconds(Int64.max) }
            if milliseconds <= 0 { return .zero }
            return .milliseconds(Int64(exactly: milliseconds) ?? Int64.max)
        }
    }

    /// A unit of work ran out of time; the database is treated as unavailable.
    package struct TimedOut: Error {}

    /// A borrowed connection: the database to run statements on, how to give it back, how to close it
    /// when it can no longer be trusted (a time-out struck in the middle of its work), and how to wait
    /// until what a unit of work wrote is committed (PostgreSQL: `PostgresCommitWait`; SQLite's commit has
    /// ended when its statement returns).
    package struct Borrowed: Sendable {
        package let database: any SQLDatabase
        package let release: @Sendable () -> Void
        package let discard: @Sendable () -> Void
        package var waitForCommit: @Sendable () async throws -> Void = {}
    }

    package let flavor: SQLFlavor
    private let borrow: @Sendable () async throws -> Borrowed
    private let close: @Sendable () async throws -> Void
    /// Nil for SQLite: its work never waits on a network.
    private let timeout: TimeInterval?
    /// Where PostgreSQL's connections live, and where a unit of work under a time-out and its timer run.
    private let eventLoopGroup: any EventLoopGroup
    /// SQLite's transactions go through it; nil on PostgreSQL, whose connections commit in parallel.
    package let commitGroup: CommitGroup?
    /// A span per unit of work (`db.work`, `db.transaction`), when a tracer is bootstrapped.
    private let spans = Spans()

    private init(
        flavor: SQLFlavor, timeout: TimeInterval?, eventLoopGroup: any EventLoopGroup,
        borrow: @escaping @Sendable () async throws -> Borrowed,
        close: @escaping @Sendable () async throws -> Void
    ) {
        self.flavor = flavor
        self.timeout = timeout
        self.eventLoopGroup = eventLoopGroup
        self.borrow = borrow
        self.close = close
        self.commitGroup = flavor == .sqlite ? CommitGroup(borrow: borrow) : nil
    }

    /// `eventLoopGroup`: where PostgreSQL's connections live. `latchkey serve` passes the server's own
    /// loops (issue 16): a request then talks to the database from the thread it runs on, where NIO's
    /// singleton loops cost two thread hand-overs per statement — a third of a login's time on PostgreSQL.
    /// `sqliteReadOnly`: a SQLite file is opened for reading only (`DirectSQLite(path:readOnly:)`); it must
    /// exist. PostgreSQL is opened as always (the caller only reads).
    package static func open(
        _ location: DatabaseLocation, limits: Limits = Limits(), logger: Logger,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton, sqliteReadOnly: Bool = false
    ) throws -> DatabaseConnections {
        switch location {
        case .sqlite(let path):
            return try direct(path: path, readOnly: sqliteReadOnly, logger: logger)
        case .sqliteMemory:
            return try direct(path: ":memory:", readOnly: false, logger: logger)
        case .postgres(let url):
            // libpq spells the scheme postgresql://; PostgresKit knows it as postgres://.
            let normalized = url.hasPrefix("postgresql://") ? "postgres://" + url.dropFirst("postgresql://".count) : url
            var configuration = try SQLPostgresConfiguration(url: normalized)
            configuration.coreConfiguration.options.connectTimeout = limits.timeAmount
            // AsyncKit pools per event loop.
            let loops = max(1, Array(eventLoopGroup.makeIterator()).count)
            let box = SendablePool(EventLoopGroupConnectionPool(
                source: PostgresConnectionSource(sqlConfiguration: configuration),
                maxConnectionsPerEventLoop: max(1, (limits.poolSize + loops - 1) / loops),
                requestTimeout: limits.timeAmount, logger: logger, on: eventLoopGroup))
            return DatabaseConnections(
                flavor: .postgres, timeout: limits.timeout, eventLoopGroup: eventLoopGroup,
                borrow: {
                    let connection = try await box.pool.requestConnection().get()
                    let database = PostgresStoreDatabase(connection: connection)
                    return Borrowed(
                        database: database, release: { box.pool.releaseConnection(connection) },
                        discard: { let _: EventLoopFuture<Void> = connection.close() }, waitForCommit: database.waitForCommit)
                },
                close: { try await box.pool.shutdownAsync() })
        }
    }

    /// SQLite through Latchkey's synchronous driver (see `DirectSQLite`).
    private static func direct(path: String, readOnly: Bool, logger: Logger) throws -> DatabaseConnections {
        if !readOnly, path != ":memory:" { SQLiteFileModes.narrow(path, logger: logger) }
        let connection = try DirectSQLite(path: path, readOnly: readOnly)
        let database = DirectSQLiteDatabase(connection: connection, logger: logger, eventLoop: MultiThreadedEventLoopGroup.singleton.any())
        return DatabaseConnections(
            flavor: .sqlite, timeout: nil, eventLoopGroup: MultiThreadedEventLoopGroup.singleton,
            borrow: {
                await connection.lock.acquire()
                return Borrowed(database: database, release: { connection.lock.release() }, discard: {})
            },
            close: {
                await connection.lock.acquire()
                connection.close()
                connection.lock.release()
            })
    }

    /// Runs `body` on one borrowed connection, within the time-out, and returns once what it wrote is
    /// committed (a write acknowledged before its commit could be lost to a crash). When the time-out strikes, the request goes
    /// on without the body (a 503): the connection is closed and handed back, so the pool drops it, and
    /// the body is left to fail on the closed connection. Closing alone is not enough: a query issued on
    /// a connection the server dropped at that very moment can wait for ever (seen with PostgreSQL
    /// stopped hard under load), and with it the request and the server's graceful shutdown.
    ///
    /// Its span, `db.work`, is opened here and the work done by a call with `traced: false` (as a
    /// PostgreSQL transaction's is, inside its own span): off, the unit of work runs in this call itself,
    /// with no frame more than before there were spans.
    package func withConnection<R: Sendable>(traced: Bool = true, _ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        if traced, spans.isOn {
            return try await spans.span("db.work") { span in
                span?.attributes["db.system.name"] = flavor.systemName
                return try await withConnection(traced: false, body)
            }
        }
        let borrowed = try await borrow()
        guard let timeout else {
            defer { borrowed.release() }
            let result = try await body(borrowed.database)
            try await borrowed.waitForCommit()
            return result
        }
        // The work runs in a task of its own, on an event loop of the group, so that a time-out can end the
        // wait without it; the timer is the loop's (cheaper than a sleeping task).
        let loop = eventLoopGroup.any()
        let first = NIOLockedValueBox(false)
        let work = NIOLockedValueBox<Task<Void, Never>?>(nil)
        let outcome: Result<R, any Error> = await withCheckedContinuation { continuation in
            let finish: @Sendable (Result<R, any Error>) -> Void = { result in
                guard first.withLockedValue({ done in defer { done = true }; return !done }) else { return }
                continuation.resume(returning: result)
            }
            let timer = loop.scheduleTask(in: Limits.timeAmount(seconds: timeout)) { finish(.failure(TimedOut())) }
            let task = Task(executorPreference: EventLoopTaskExecutor(loop)) {
                let result: Result<R, any Error>
                do {
                    let value = try await body(borrowed.database)
                    try await borrowed.waitForCommit()
                    result = .success(value)
                } catch {
                    result = .failure(error)
                }
                // A finished unit of work must not leave its timer waiting out the time-out.
                timer.cancel()
                finish(result)
            }
            work.withLockedValue { $0 = task }
        }
        if case .failure(let error) = outcome, error is TimedOut {
            borrowed.discard()
            work.withLockedValue { $0?.cancel() }
        }
        borrowed.release()
        return try outcome.get()
    }

    /// Runs `body` in a transaction on one connection: committed when it returns, rolled back when it throws.
    /// On SQLite, transactions that arrive together share one commit (`CommitGroup`): the span then covers
    /// the wait for the group's commit too.
    /// Its span is `db.transaction`, opened as `withConnection`'s is.
    package func transaction<R: Sendable>(traced: Bool = true, _ body: @escaping @Sendable (any SQLDatabase) async throws -> R) async throws -> R {
        if traced, spans.isOn {
            return try await spans.span("db.transaction") { span in
                span?.attributes["db.system.name"] = flavor.systemName
                return try await transaction(traced: false, body)
            }
        }
        if let commitGroup { return try await commitGroup.transaction(body) }
        return try await withConnection(traced: false) { [flavor] database in
            try await database.run(StoreQuery(flavor == .sqlite ? TransactionSQL.beginImmediate : TransactionSQL.begin))
            do {
                let result = try await body(database)
                try await database.run(StoreQuery(TransactionSQL.commit))
                return result
            } catch {
                try? await database.run(StoreQuery(TransactionSQL.rollback))
                throw error
            }
        }
    }

    package func shutdown() async throws {
        try await close()
    }
}

/// AsyncKit's pool guards its state with its own lock but does not declare `Sendable`; this says so.
private struct SendablePool<Source: ConnectionPoolSource>: @unchecked Sendable {
    let pool: EventLoopGroupConnectionPool<Source>
    init(_ pool: EventLoopGroupConnectionPool<Source>) { self.pool = pool }
}
