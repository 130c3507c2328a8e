import Foundation
@testable import LatchkeyDatabase
@testable import LatchkeyTransport
import Logging
import Testing
@testable import LatchkeyServer

/// Several instances on one database (issue 13): each "instance" here is a store with its own
/// connections to the same SQLite file or PostgreSQL database, as separate processes would have. An
/// extension of `StoreTests` so that it shares its serialization (the PostgreSQL cases drop its tables).
extension StoreTests {
    /// `count` stores on one fresh database, migrated by all of them at the same moment.
    static func instances(_ backend: String, count: Int) async throws -> ([Store], cleanup: @Sendable () async -> Void) {
        let location: DatabaseLocation
        var file: String?
        if backend == "postgres" {
            location = .postgres(url: try #require(Backends.postgresURL))
            let connections = try DatabaseConnections.open(location, logger: Logger(label: "test"))
            do {
                try await connections.withConnection { db in
                    for table in Backends.tables { try await db.raw("DROP TABLE IF EXISTS \(unsafeRaw: table) CASCADE").run() }
                }
            } catch {
                try? await connections.shutdown()
                throw error
            }
            try await connections.shutdown()
        } else {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-instances-\(UUID().uuidString).sqlite").path
            file = path
            location = .sqlite(path: path)
        }
        let pools = try (0..<count).map { _ in try DatabaseConnections.open(location, logger: Logger(label: "test")) }
        let cleanup: @Sendable () async -> Void = { [file] in
            for pool in pools { try? await pool.shutdown() }
            if let file { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file + suffix) } }
        }
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for pool in pools { group.addTask { try await Migrations.run(on: pool) } }
                try await group.waitForAll()
            }
        } catch {
            await cleanup()
            throw error
        }
        return (pools.map { Store(connections: $0) }, cleanup)
    }

    static func housekeeping(_ store: Store, _ name: String) -> Housekeeping {
        Housekeeping(store: store, connections: store.connections, logger: Logger(label: "test"), interval: 60, instance: name)
    }

    @Test("three instances starting at the same moment apply each migration once", arguments: ["sqlite-file"] + (Backends.postgresURL == nil ? [] : ["postgres"]))
    func concurrentMigrations(backend: String) async throws {
        let (stores, cleanup) = try await Self.instances(backend, count: 3)
        do {
            let versions = try await stores[0].connections.withConnection { db in
                try await db.raw("SELECT version FROM schema_migrations ORDER BY version").all().map { try $0.decode(column: "version", as: Int.self) }
            }
            // Every version once (versions need not be contiguous: numbers are reserved by other branches).
            #expect(versions == Migrations.all.map(\.version).sorted())
        } catch {
            await cleanup()
            throw error
        }
        await cleanup()
    }

    @Test("of instances that wake up together, one purges; the next purge is an interval later, by any of them",
          arguments: ["sqlite-file"] + (Backends.postgresURL == nil ? [] : ["postgres"]))
    func housekeepingOnce(backend: String) async throws {
        let (stores, cleanup) = try await Self.instances(backend, count: 3)
        do {
            let now = Date()
            // An expired challenge's mark, for the purge to remove.
            let account = Self.account()
            try await stores[0].ceremonies.createAccount(account, credential: Self.credential([9], account: account.id))
            try await stores[1].ceremonies.addCredential(Self.credential([8], account: account.id), challenge: Self.used(7, after: -1 - Store.usedChallengeGrace, now: now))
            #expect(try await stores[0].usedChallengeCount() == 1)

            func round(at time: Date) async throws -> [Bool] {
                try await withThrowingTaskGroup(of: Bool.self) { group in
                    for (index, store) in stores.enumerated() {
                        group.addTask { try await Self.housekeeping(store, "instance-\(index)").runOnce(now: time) }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
            }
            #expect(try await round(at: now).filter { $0 }.count == 1, "one of three purges")
            #expect(try await stores[2].usedChallengeCount() == 0, "and its purge removed the expired mark")
            #expect(try await round(at: now.addingTimeInterval(5)).filter { $0 }.count == 0, "within the interval nobody purges again")
            #expect(try await round(at: now.addingTimeInterval(60)).filter { $0 }.count == 1, "an interval later, one purges again")
            let last = try #require(try await stores[0].lastRun(of: Housekeeping.purgeTask))
            #expect(last.instance.hasPrefix("instance-"))
            #expect(abs(last.at.timeIntervalSince(now.addingTimeInterval(60))) < 0.01)
        } catch {
            await cleanup()
            throw error
        }
        await cleanup()
    }

    @Test("leased tokens: a busy client costs the bucket a round trip per several requests, and three instances together still admit the limit once",
          arguments: Backends.postgresURL == nil ? [] : ["postgres"])
    func leasedRateLimit(backend: String) async throws {
        let (stores, cleanup) = try await Self.instances(backend, count: 3)
        do {
            let limits = stores.map { SharedRateLimit(store: $0, perMinute: 320, logger: Logger(label: "test")) }
            #expect(limits[0].maximumLease == 20)
            let client = RateLimitClient.v4(0x0A00_0001)
            let started = ContinuousClock.now
            var allowed = 0
            var takesWhileAdmitted = 0
            for index in 0..<600 {
                if await limits[index % 3].admit(client) == .allowed { allowed += 1 }
                if index == 299 { takesWhileAdmitted = limits.map(\.databaseTakes).reduce(0, +) }
            }
            let elapsed = ContinuousClock.now - started
            // 320 at once, plus what refilled (5⅓ a second) while the 600 ran; leases forfeited by an
            // instance could only lower it, by at most 3 × 20.
            let refilled = Int((Double(elapsed.components.seconds) + 1) * 320 / 60)
            #expect((260...(320 + refilled)).contains(allowed), "allowed \(allowed) of 600 in \(elapsed)")
            // The first 300 are within the limit: leases of up to 20 cover them in a few dozen takes.
            #expect(takesWhileAdmitted < 60, "\(takesWhileAdmitted) round trips to the bucket for the first 300 requests")
            // A fresh client asks for one token: its first take is exact.
            let other = RateLimitClient.v4(0x0A00_0002)
            #expect(await limits[1].admit(other) == .allowed)
            let first = try await stores[0].connections.withConnection { db in
                try await db.raw("SELECT granted FROM rate_limits WHERE client = \(bind: Data(other.bytes))").first()?
                    .decode(column: "granted", as: Double.self)
            }
            #expect(first == 1)
        } catch {
            await cleanup()
            throw error
        }
        await cleanup()
    }

    @Test("the shared rate limit: a client spreading its requests over three instances gets the limit once, not three times",
          arguments: Backends.postgresURL == nil ? [] : ["postgres"])
    func sharedRateLimit(backend: String) async throws {
        let (stores, cleanup) = try await Self.instances(backend, count: 3)
        do {
            let client = RateLimitClient.v4(0xCB00_7107)
            let decisions = try await withThrowingTaskGroup(of: RateLimiter.Decision.self) { group in
                for index in 0..<90 {
                    group.addTask { try await stores[index % 3].rateLimits.admit(client: client.bytes, perMinute: 30) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let allowed = decisions.filter { $0 == .allowed }.count
            // 30 at once, and whatever refilled (half a request a second) while the 90 ran.
            #expect((30...31).contains(allowed), "allowed \(allowed) of 90")
            for case .limited(let seconds) in decisions { #expect((1...2).contains(seconds)) }
            let other = RateLimitClient.v6Prefix(0x2001_0db8_0000_0001)
            #expect(try await stores[1].rateLimits.admit(client: other.bytes, perMinute: 30) == .allowed, "another client has its own bucket")
            #expect(other.bytes.count == 8 && client.bytes == [0xCB, 0x00, 0x71, 0x07])
        } catch {
            await cleanup()
            throw error
        }
        await cleanup()
    }
}
