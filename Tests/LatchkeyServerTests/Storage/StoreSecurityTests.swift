import Foundation
@testable import LatchkeyDatabase
import Logging
import Testing
@testable import LatchkeyServer

/// The storage side of SECURITY-FINDINGS 10, 12 and 13, on every backend. An extension of `StoreTests`
/// so that they share its serialization: the PostgreSQL cases use one database and drop its tables.
extension StoreTests {
    @Test("text is stored byte for byte, NULs included (the driver bound text up to the first NUL) (SECURITY-FINDINGS.md, finding 12)", arguments: Backends.all)
    func nulStored(backend: String) async throws {
        try await Backends.with(backend) { store in
            let account = Self.account()
            try await store.ceremonies.createAccount(account, credential: Self.credential([1], account: account.id))
            // PostgreSQL refuses NUL in text outright, which the API's rules never let through anyway.
            let credo = backend == "postgres" ? "before\u{1}after" : "before\u{0}after"
            _ = try await store.updateAccount(id: account.id, displayName: nil, credo: credo, now: Date())
            #expect(try await store.account(id: account.id)?.credo == credo)
        }
    }

    @Test("two registrations of one credential id at once: one account, one 409-able duplicate, no driver error (SECURITY-FINDINGS.md, finding 13)", arguments: Backends.all)
    func duplicateRace(backend: String) async throws {
        try await Backends.with(backend) { store in
            for round in 0..<10 {
                let id: [UInt8] = [0xd0, UInt8(round)]
                let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
                    for _ in 0..<2 {
                        group.addTask {
                            let account = Self.account()
                            do {
                                try await store.ceremonies.createAccount(account, credential: Self.credential(id, account: account.id))
                                return "created"
                            } catch Store.Failure.duplicate {
                                return "duplicate"
                            }
                        }
                    }
                    return try await group.reduce(into: [String]()) { $0.append($1) }.sorted()
                }
                #expect(outcomes == ["created", "duplicate"], "round \(round)")
            }
        }
    }

    @Test("removing an account's last two passkeys at once leaves one (SECURITY-FINDINGS.md, finding 13)", arguments: Backends.all)
    func deletionRace(backend: String) async throws {
        try await Backends.with(backend) { store in
            for round in 0..<10 {
                let account = Self.account()
                try await store.ceremonies.createAccount(account, credential: Self.credential([0xe0, UInt8(round)], account: account.id))
                try await store.ceremonies.addCredential(Self.credential([0xe1, UInt8(round)], account: account.id))
                let outcomes = try await withThrowingTaskGroup(of: Store.DeleteCredentialOutcome.self) { group in
                    for prefix: UInt8 in [0xe0, 0xe1] {
                        group.addTask { try await store.deleteCredential(id: [prefix, UInt8(round)], accountId: account.id, keepingSession: []) }
                    }
                    return try await group.reduce(into: [Store.DeleteCredentialOutcome]()) { $0.append($1) }
                }
                #expect(outcomes.filter { $0 == .deleted }.count == 1, "round \(round): \(outcomes)")
                #expect(outcomes.filter { $0 == .lastPasskey }.count == 1, "round \(round): \(outcomes)")
                #expect(try await store.credentials(accountId: account.id).count == 1)
            }
        }
    }
}

extension StoreTests {
    @Test("a unit of work past the database time-out ends at the time-out, its connection dropped; the pool goes on",
          arguments: Backends.all.filter { $0 == "postgres" })
    func databaseTimeout(backend: String) async throws {
        let url = try #require(Backends.postgresURL)
        // One connection: the next unit of work can only run if the stuck one's slot came back.
        let connections = try DatabaseConnections.open(.postgres(url: url), limits: .init(poolSize: 1, timeout: 0.5), logger: Logger(label: "test"))
        do {
            let started = ContinuousClock.now
            await #expect(throws: DatabaseConnections.TimedOut.self) {
                try await connections.withConnection { db in try await db.raw("SELECT pg_sleep(5)").run() }
            }
            #expect(ContinuousClock.now - started < .seconds(3), "ended at the time-out, not when the query did")
            #expect(DatabaseAvailability.isUnavailable(DatabaseConnections.TimedOut()), "a 503, not a 500")
            let one = try await connections.withConnection { db in try await db.raw("SELECT 1 AS one").first()?.decode(column: "one", as: Int.self) }
            #expect(one == 1)
        } catch {
            try? await connections.shutdown()
            throw error
        }
        try await connections.shutdown()
    }
}
