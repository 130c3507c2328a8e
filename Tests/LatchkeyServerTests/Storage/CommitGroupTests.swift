import Foundation
@testable import LatchkeyDatabase
import Logging
import NIOConcurrencyHelpers
import SQLKit
import Testing
@testable import LatchkeyServer

/// SQLite's group commit (`CommitGroup`): transactions that commit together behave as if each had
/// committed alone, in order.
@Suite("SQLite group commit")
struct CommitGroupTests {
    /// Runs `body` on a scratch database (not migrated) with a table of unique names, one of deferred
    /// references and a counter, and removes the database afterwards whatever happens.
    private static func withScratch(_ body: (DatabaseConnections) async throws -> Void) async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-group-\(UUID().uuidString).sqlite").path
        let connections = try DatabaseConnections.open(.sqlite(path: path), logger: Logger(label: "test"))
        let outcome: Result<Void, any Error>
        do {
            try await connections.withConnection { db in
                try await db.raw("CREATE TABLE names (name TEXT PRIMARY KEY)").run()
                try await db.raw("CREATE TABLE parents (id INTEGER PRIMARY KEY)").run()
                // Checked at commit, not at the insert: a body can succeed and its group's commit still fail.
                try await db.raw("CREATE TABLE children (parent INTEGER REFERENCES parents (id) DEFERRABLE INITIALLY DEFERRED)").run()
                try await db.raw("CREATE TABLE counter (n INTEGER NOT NULL)").run()
                try await db.raw("INSERT INTO counter (n) VALUES (0)").run()
            }
            try await body(connections)
            outcome = .success(())
        } catch {
            outcome = .failure(error)
        }
        try? await connections.shutdown()
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        try outcome.get()
    }

    private static func names(_ connections: DatabaseConnections) async throws -> [String] {
        try await connections.withConnection { db in
            try await db.raw("SELECT name FROM names ORDER BY name").all().map { try $0.decode(column: "name", as: String.self) }
        }
    }

    private static func insert(_ name: String) -> @Sendable (any SQLDatabase) async throws -> Void {
        { db in try await db.raw("INSERT INTO names (name) VALUES (\(bind: name))").run() }
    }

    /// A member whose outcome the test can read: its body, and what the body left behind.
    private final class Probe: Sendable {
        let member: CommitGroup.Member
        let threw = LockedFlag()

        init(_ body: @escaping @Sendable (any SQLDatabase) async throws -> Void) {
            let threw = self.threw
            member = CommitGroup.Member { db in
                do {
                    try await body(db)
                    return true
                } catch {
                    threw.set()
                    return false
                }
            }
        }
    }

    @Test("one group: each body sees the writes before it; a body that throws is rolled back alone; one commit keeps the rest")
    func savepointsInOneCommit() async throws {
        try await Self.withScratch { connections in
            let group = try #require(connections.commitGroup)
            let first = Probe(Self.insert("ada"))
            // Sees "ada" (written by the body before it, not yet committed) and fails on it after a write of
            // its own, which must go with it.
            let second = Probe { db in
                try await db.raw("INSERT INTO names (name) VALUES ('grace')").run()
                try await db.raw("INSERT INTO names (name) VALUES ('ada')").run()
            }
            let third = Probe(Self.insert("grace"))
            let failure = await group.run([first.member, second.member, third.member])
            #expect(failure == nil)
            #expect(!first.threw.value)
            #expect(second.threw.value)
            #expect(!third.threw.value)
            #expect(try await Self.names(connections) == ["ada", "grace"])
        }
    }

    @Test("a commit that fails keeps nothing of the group and is every member's error")
    func failedCommit() async throws {
        try await Self.withScratch { connections in
            let group = try #require(connections.commitGroup)
            let fine = Probe(Self.insert("ada"))
            let orphan = Probe { db in try await db.raw("INSERT INTO children (parent) VALUES (42)").run() }
            let failure = await group.run([fine.member, orphan.member])
            #expect(failure != nil)
            #expect(!fine.threw.value && !orphan.threw.value)
            #expect(try await Self.names(connections).isEmpty)
            // The connection is usable afterwards: the failed transaction was rolled back, not left open.
            try await connections.transaction(Self.insert("grace"))
            #expect(try await Self.names(connections) == ["grace"])
        }
    }

    @Test("through the connections: 50 racing inserts of one key commit once, 200 read-modify-writes lose none")
    func racingTransactions() async throws {
        try await Self.withScratch { connections in
            let succeeded = try await withThrowingTaskGroup(of: Bool.self) { tasks in
                for _ in 0..<50 {
                    tasks.addTask {
                        do {
                            try await connections.transaction(Self.insert("once"))
                            return true
                        } catch {
                            return false
                        }
                    }
                }
                return try await tasks.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(succeeded == 1)
            #expect(try await Self.names(connections) == ["once"])
            try await withThrowingTaskGroup(of: Void.self) { tasks in
                for _ in 0..<200 {
                    tasks.addTask {
                        try await connections.transaction { db in
                            let n = try #require(try await db.raw("SELECT n FROM counter").first()).decode(column: "n", as: Int.self)
                            try await db.raw("UPDATE counter SET n = \(bind: n + 1)").run()
                        }
                    }
                }
                try await tasks.waitForAll()
            }
            let total = try await connections.withConnection { db in
                try #require(try await db.raw("SELECT n FROM counter").first()).decode(column: "n", as: Int.self)
            }
            #expect(total == 200)
        }
    }
}

/// A flag set once from any task.
final class LockedFlag: Sendable {
    private let box = NIOLockedValueBox(false)
    var value: Bool { box.withLockedValue { $0 } }
    func set() { box.withLockedValue { $0 = true } }
}
