import Foundation
@testable import LatchkeyDatabase
import Logging
import SQLKit
import Testing
@testable import LatchkeyServer

/// A unit of work on PostgreSQL is reported done only once its last write is committed
/// (`PostgresCommitWait`): the crash test once lost an acknowledged login to PostgreSQL dying between a
/// statement's `CommandComplete` and the commit at `Sync`.
@Suite("Commits on PostgreSQL")
struct PostgresCommitWaitTests {
    @Test("a statement's effect on the transaction is read from its first word")
    func effects() {
        #expect(StatementEffect("BEGIN") == .begin)
        #expect(StatementEffect("  commit") == .end)
        #expect(StatementEffect("ROLLBACK") == .end)
        #expect(StatementEffect("ROLLBACK TO member") == .read)
        #expect(StatementEffect("SAVEPOINT member") == .read)
        #expect(StatementEffect("\n  SELECT a FROM b") == .read)
        #expect(StatementEffect("INSERT INTO t VALUES (1)") == .write)
        #expect(StatementEffect("WITH x AS (DELETE FROM t RETURNING a) SELECT count(*) FROM x") == .write)
        #expect(StatementEffect("CALL p()") == .end)
        #expect(SQL.finishLoginAtOnce.effect == .end, "the login's procedure commits before it answers")
        #expect(SQL.sessionAccountRecord.effect == .read)
    }

    @Test("only a write outside BEGIN … COMMIT, not followed by another statement, leaves a commit to wait for")
    func whenToWait() {
        let commits = PostgresCommitWait()
        #expect(!commits.hasUncommittedWrite)
        commits.completed(.write)
        #expect(commits.hasUncommittedWrite)
        commits.completed(.read)  // sent after the write's ReadyForQuery: the commit has ended
        #expect(!commits.hasUncommittedWrite)
        commits.completed(nil)  // a statement of unknown shape counts as a write
        #expect(commits.hasUncommittedWrite)
        commits.completed(.begin)
        commits.completed(.write)
        #expect(!commits.hasUncommittedWrite, "inside a transaction the COMMIT is what commits")
        commits.completed(.end)
        #expect(!commits.hasUncommittedWrite)
    }

    /// A foreign key checked at commit (DEFERRABLE INITIALLY DEFERRED) makes the commit of a single INSERT
    /// fail after PostgreSQL has reported the INSERT complete: without the wait the unit would succeed.
    /// PostgresNIO does not expect an error after `CommandComplete`, and the next query on that connection
    /// can wait for an answer that never comes; the time-out (1 s here) ends the unit then, as it would
    /// any database that stopped answering, and the connection is closed.
    @Test("a single write whose commit fails fails its unit of work", .enabled(if: Backends.postgresURL != nil))
    func failedCommitIsReported() async throws {
        let connections = try DatabaseConnections.open(
            .postgres(url: try #require(Backends.postgresURL)), limits: .init(poolSize: 2, timeout: 1), logger: Logger(label: "test"))
        let suffix = UUID().uuidString.prefix(8).lowercased()
        let parent = "commit_wait_parent_\(suffix)", child = "commit_wait_child_\(suffix)"
        do {
            try await connections.withConnection { db in
                try await db.raw("CREATE TABLE \(unsafeRaw: parent) (id INTEGER PRIMARY KEY)").run()
                try await db.raw("""
                    CREATE TABLE \(unsafeRaw: child) (id INTEGER PRIMARY KEY,
                    parent INTEGER REFERENCES \(unsafeRaw: parent) (id) DEFERRABLE INITIALLY DEFERRED)
                    """).run()
            }
            let orphan = StoreStatement("INSERT INTO \(child) (id, parent) VALUES ($1, $2)")
            let adopted = StoreStatement("INSERT INTO \(parent) (id) VALUES ($1)")
            await #expect(throws: (any Error).self, "the commit's failure reaches the caller") {
                try await connections.withConnection { db in try await db.run(StoreQuery(orphan, .integer(1), .integer(7))) }
            }
            // The same with a read after the write in the unit: the read, sent after the failed commit, fails.
            let count = StoreStatement("SELECT count(*) AS n FROM \(child)")
            await #expect(throws: (any Error).self) {
                try await connections.withConnection { db in
                    try await db.run(StoreQuery(orphan, .integer(2), .integer(7)))
                    return try await db.first(StoreQuery(count))?.decode(column: "n", as: Int.self)
                }
            }
            // A write that commits is reported done, and is there for every other connection.
            try await connections.withConnection { db in try await db.run(StoreQuery(adopted, .integer(7))) }
            try await connections.withConnection { db in try await db.run(StoreQuery(orphan, .integer(3), .integer(7))) }
            let stored = try await connections.withConnection { db in try await db.first(StoreQuery(count))?.decode(column: "n", as: Int.self) }
            #expect(stored == 1)
        } catch {
            try? await connections.withConnection { db in try await db.raw("DROP TABLE IF EXISTS \(unsafeRaw: child), \(unsafeRaw: parent)").run() }
            try? await connections.shutdown()
            throw error
        }
        try await connections.withConnection { db in try await db.raw("DROP TABLE IF EXISTS \(unsafeRaw: child), \(unsafeRaw: parent)").run() }
        try await connections.shutdown()
    }
}
