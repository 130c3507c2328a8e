import Foundation
@testable import LatchkeyDatabase
import Logging
import Testing
import WebAuthn
@testable import LatchkeyServer

/// Where the storage suite runs: SQLite always; PostgreSQL when scripts/test started one
/// (`LATCHKEY_TEST_POSTGRES_URL`). When scripts/test promised one (`LATCHKEY_REQUIRE_POSTGRES=1`) and the
/// URL is missing, `postgresIsProvided` fails the run instead of letting the PostgreSQL cases vanish.
enum Backends {
    static let postgresURL = ProcessInfo.processInfo.environment["LATCHKEY_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

    static var all: [String] {
        ["sqlite-memory", "sqlite-file"] + (postgresURL == nil ? [] : ["postgres"])
    }

    /// Every table any version of the schema has had, for emptying the PostgreSQL test database.
    static let tables = [
        "oidc_account_claims", "oidc_group_claims", "oidc_logout_outbox", "oidc_device_codes", "oidc_client_assertions", "console_sessions", "admin_setup_links", "admin_roles", "sessions", "ceremonies", "used_challenges", "server_keys", "credentials", "accounts", "housekeeping", "rate_limits",
        "audit_events", "admin_keys", "webhook_outbox", "recovery_grants", "device_requests", "invitation_uses", "invitations",
        "oidc_refresh_tokens", "oidc_codes", "oidc_grants", "oidc_consents", "oidc_clients", "email_tokens", "mail_log",
        "metadata_entries", "metadata_blob", "usernames",
        "schema_migrations",
    ]

    /// Runs `body` on a fresh, migrated database, and gets rid of it afterwards whatever happens.
    static func with(_ name: String, migratedThrough last: Int = Migrations.latestVersion, _ body: (Store) async throws -> Void) async throws {
        let (store, cleanup) = try await open(name, migratedThrough: last)
        do {
            try await body(store)
        } catch {
            await cleanup()
            throw error
        }
        await cleanup()
    }

    /// A fresh, migrated database for one test, and how to get rid of it.
    static func open(_ name: String, migratedThrough last: Int = Migrations.latestVersion) async throws -> (Store, cleanup: @Sendable () async -> Void) {
        let location: DatabaseLocation
        var file: URL?
        switch name {
        case "sqlite-file":
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-store-\(UUID().uuidString).sqlite")
            file = url
            location = .sqlite(path: url.path)
        case "postgres":
            location = .postgres(url: try #require(postgresURL))
        default:
            location = .sqliteMemory
        }
        let connections = try DatabaseConnections.open(location, logger: Logger(label: "test"))
        do {
            if name == "postgres" {
                // Each test starts from an empty schema.
                try await connections.withConnection { db in
                    for table in tables {
                        try await db.raw("DROP TABLE IF EXISTS \(unsafeRaw: table) CASCADE").run()
                    }
                }
            }
            try await Migrations.run(on: connections, through: last)
        } catch {
            // A pool must be shut down before it goes away, also when setting up failed.
            try? await connections.shutdown()
            throw error
        }
        let path = file
        return (Store(connections: connections), {
            try? await connections.shutdown()
            if let path {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path.path + suffix) }
            }
        })
    }
}

@Suite("Storage on SQLite and PostgreSQL", .serialized)
struct StoreTests {
    @Test("PostgreSQL is provided when scripts/test says it is")
    func postgresIsProvided() {
        if ProcessInfo.processInfo.environment["LATCHKEY_REQUIRE_POSTGRES"] == "1" {
            #expect(Backends.postgresURL != nil, "scripts/test started PostgreSQL but LATCHKEY_TEST_POSTGRES_URL is not set")
        }
    }

    @Test("the store picks the ceremonies' storage for its database when it is made", arguments: Backends.all)
    func ceremonyStorageByDatabase(backend: String) async throws {
        try await Backends.with(backend) { store in
            if backend == "postgres" {
                #expect(store.ceremonies is PostgresCeremonyStorage)
            } else {
                #expect(store.ceremonies is SQLiteCeremonyStorage)
            }
        }
    }

    static func account(_ id: String = UUID().uuidString) -> AccountRecord {
        AccountRecord(id: id, userHandle: Array(id.utf8), displayName: "Ada ✨", credo: "", createdAt: Date(timeIntervalSince1970: 1_700_000_000), updatedAt: Date(timeIntervalSince1970: 1_700_000_000))
    }

    static func credential(_ id: [UInt8], account: String) -> CredentialRecord {
        CredentialRecord(
            id: id, accountId: account, publicKey: [0xa5, 1, 2], algorithm: -7, signCount: 3_000_000_000, transports: ["internal", "hybrid"],
            aaguid: [UInt8](repeating: 7, count: 16), attestationFormat: "none", backupEligible: true, backupState: false,
            uvInitialized: true, name: "Phone", createdAt: Date(timeIntervalSince1970: 1_700_000_001), lastUsedAt: nil)
    }

    @Test("what the client said about a passkey — discoverable (credProps) and PRF (prf) — round-trips as yes, no and unknown", arguments: Backends.all)
    func clientReportedProperties(backend: String) async throws {
        try await Backends.with(backend) { store in
            let account = Self.account()
            var said = Self.credential([4, 4, 1], account: account.id)
            said.discoverable = true
            said.prfEnabled = true
            var denied = Self.credential([4, 4, 2], account: account.id)
            denied.discoverable = false
            denied.prfEnabled = false
            let unknown = Self.credential([4, 4, 3], account: account.id)
            try await store.ceremonies.createAccount(account, credential: said)
            try await store.ceremonies.addCredential(denied)
            try await store.ceremonies.addCredential(unknown)
            for expected in [said, denied, unknown] {
                let stored = try #require(try await store.credential(id: expected.id))
                #expect(stored == expected)
                #expect(stored.discoverable == expected.discoverable && stored.prfEnabled == expected.prfEnabled)
            }
            #expect(try await store.credentials(accountId: account.id).map(\.prfEnabled) == [true, false, nil])
            // The login's one-query look-up reads them too.
            let (looked, _) = try #require(try await store.connections.withConnection { try await CeremonySteps.credentialWithAccount(id: [4, 4, 2], on: $0) })
            #expect(looked.discoverable == false && looked.prfEnabled == false)
        }
    }

    @Test("accounts and credentials round-trip every field", arguments: Backends.all)
    func roundTrip(backend: String) async throws {
        try await Backends.with(backend) { store in
            let account = Self.account()
            let credential = Self.credential([1, 2, 3], account: account.id)
            try await store.ceremonies.createAccount(account, credential: credential)
            #expect(try await store.account(id: account.id) == account)
            #expect(try await store.credential(id: [1, 2, 3]) == credential)
            #expect(try await store.credentials(accountId: account.id) == [credential])
            let updated = try await store.updateAccount(id: account.id, displayName: nil, credo: "Ça va", now: Date(timeIntervalSince1970: 1_800_000_000))
            #expect(updated?.credo == "Ça va")
            #expect(updated?.displayName == "Ada ✨")
            #expect(try await store.account(id: account.id)?.updatedAt == Date(timeIntervalSince1970: 1_800_000_000))
        }
    }

    @Test("registration is all or nothing: a duplicate credential leaves no account behind", arguments: Backends.all)
    func atomicRegistration(backend: String) async throws {
        try await Backends.with(backend) { store in
            let first = Self.account()
            try await store.ceremonies.createAccount(first, credential: Self.credential([9], account: first.id))
            let second = Self.account()
            await #expect(throws: Store.Failure.duplicate) {
                try await store.ceremonies.createAccount(second, credential: Self.credential([9], account: second.id))
            }
            #expect(try await store.account(id: second.id) == nil)
        }
    }

    /// The mark a completed ceremony leaves for challenge `byte`, expiring `after` seconds from now.
    static func used(_ byte: UInt8, after seconds: TimeInterval = 300, now: Date = Date()) -> UsedChallenge {
        UsedChallenge(digest: ChallengeSealer.digest([byte]), expiresAt: now + seconds)
    }

    @Test("a challenge completes one registration, even with 50 racing; the mark goes when the challenge expires", arguments: Backends.all)
    func challengeUsedOnce(backend: String) async throws {
        try await Backends.with(backend) { store in
            let now = Date()
            let challenge = Self.used(4, now: now)
            let winners = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        let account = Self.account()
                        do {
                            try await store.ceremonies.createAccount(account, credential: Self.credential([100, UInt8(index)], account: account.id), challenge: challenge)
                            return true
                        } catch Store.Failure.challengeUsed {
                            #expect(try await store.account(id: account.id) == nil, "a refused registration leaves nothing behind")
                            return false
                        }
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(winners == 1)
            // Adding a passkey with a used challenge is refused the same way.
            let owner = Self.account()
            try await store.ceremonies.createAccount(owner, credential: Self.credential([101], account: owner.id))
            await #expect(throws: Store.Failure.challengeUsed) {
                try await store.ceremonies.addCredential(Self.credential([102], account: owner.id), challenge: challenge)
            }
            #expect(try await store.credential(id: [102]) == nil)
            #expect(try await store.usedChallengeCount() == 1)
            try await store.purgeUsedChallenges(now: now + 299)
            #expect(try await store.usedChallengeCount() == 1, "kept while the challenge could still open")
            try await store.purgeUsedChallenges(now: now + 300 + Store.usedChallengeGrace - 1)
            #expect(try await store.usedChallengeCount() == 1, "kept for the clock-skew grace after it expired (review 3, finding 8)")
            try await store.purgeUsedChallenges(now: now + 300 + Store.usedChallengeGrace)
            #expect(try await store.usedChallengeCount() == 0)
        }
    }

    @Test("the server key is made once and read back the same by every instance", arguments: Backends.all)
    func serverKeyOnce(backend: String) async throws {
        try await Backends.with(backend) { store in
            let keys = try await withThrowingTaskGroup(of: [UInt8].self) { group in
                for index in 0..<10 {
                    group.addTask { try await store.serverKey(named: "test-key", make: { [UInt8](repeating: UInt8(index), count: 32) }) }
                }
                return try await group.reduce(into: Set<[UInt8]>()) { $0.insert($1) }
            }
            #expect(keys.count == 1, "one key, whichever insert won")
            #expect(try await store.serverKey(named: "test-key", make: { [UInt8](repeating: 0xEE, count: 32) }) == keys.first)
            #expect(try await store.serverKey(named: "other-key", make: { [UInt8](repeating: 0xEE, count: 32) }) == [UInt8](repeating: 0xEE, count: 32))
        }
    }

    @Test("sessions: found by hash until they expire; deleting the account removes everything", arguments: Backends.all)
    func sessionsAndDeletion(backend: String) async throws {
        try await Backends.with(backend) { store in
            let account = Self.account()
            try await store.ceremonies.createAccount(account, credential: Self.credential([1], account: account.id))
            try await store.ceremonies.addCredential(Self.credential([2], account: account.id))
            let now = Date()
            try await store.insertSession(NewSession(tokenHash: [1, 1], accountId: account.id, credentialId: nil, createdAt: now, expiresAt: now + 60, userVerified: true))
            #expect(try await store.sessionAccount(tokenHash: [1, 1], now: now) == account.id)
            #expect(try await store.sessionAccount(tokenHash: [1, 1], now: now + 61) == nil)
            #expect(try await store.deleteCredential(id: [2], accountId: "someone-else", keepingSession: []) == .notFound)
            #expect(try await store.deleteCredential(id: [2], accountId: account.id, keepingSession: []) == .deleted)
            #expect(try await store.deleteCredential(id: [1], accountId: account.id, keepingSession: []) == .lastPasskey)
            try await store.deleteAccount(id: account.id)
            #expect(try await store.account(id: account.id) == nil)
            #expect(try await store.credential(id: [1]) == nil)
            #expect(try await store.sessionAccount(tokenHash: [1, 1], now: now) == nil)
        }
    }

    /// A stored account with one credential, whose counter stands at `signCount`.
    static func loginReady(_ store: Store, credentialId: UInt8, signCount: UInt32) async throws -> AccountRecord {
        let account = Self.account()
        var credential = Self.credential([credentialId], account: account.id)
        credential.signCount = signCount
        try await store.ceremonies.createAccount(account, credential: credential)
        return account
    }

    /// A decision that accepts with the given counter and opens a session with the given token hash.
    static func accept(_ signCount: UInt32, token: UInt8, now: Date) -> @Sendable (CredentialRecord, AccountRecord) -> LoginVerdict {
        { _, account in
            .accept(LoginWrites(
                signCount: signCount, backupState: true, userVerified: true,
                session: NewSession(tokenHash: [token], accountId: account.id, credentialId: nil, createdAt: now, expiresAt: now + 60, userVerified: true)))
        }
    }

    @Test("a login's transaction: a completed login marks its challenge, moves the counter and stores the session; any other outcome writes nothing", arguments: Backends.all)
    func finishLogin(backend: String) async throws {
        try await Backends.with(backend) { store in
            let now = Date()
            let account = try await Self.loginReady(store, credentialId: 3, signCount: 5)

            // The decision sees the stored credential and its account.
            let seen = try await store.ceremonies.finishLogin(challenge: Self.used(20, now: now), credentialId: [3]) { record, owner in
                #expect(record.signCount == 5 && owner.id == account.id)
                return Self.accept(6, token: 1, now: now)(record, owner)
            }
            guard case .completed(let owner, _) = seen else { Issue.record("expected a completed login, got \(seen)"); return }
            #expect(owner.id == account.id)
            #expect(try await store.sessionAccount(tokenHash: [1], now: now) == account.id)
            let stored = try await store.credential(id: [3])
            #expect(stored?.signCount == 6)
            #expect(stored?.backupState == true)
            #expect(stored?.lastUsedAt != nil)
            #expect(try await store.usedChallengeCount() == 1)

            // The same challenge again: nothing more is written.
            let again = try await store.ceremonies.finishLogin(challenge: Self.used(20, now: now), credentialId: [3], decide: Self.accept(7, token: 2, now: now))
            guard case .unknownChallenge = again else { Issue.record("expected unknownChallenge, got \(again)"); return }
            #expect(try await store.sessionAccount(tokenHash: [2], now: now) == nil)
            // A replay that fails verification (the winner moved the counter) is still reported as a replay.
            let replayed = try await store.ceremonies.finishLogin(challenge: Self.used(20, now: now), credentialId: [3]) { _, _ in
                .reject(WebAuthnError(.signCountRegression(stored: 6, received: 6), in: .authentication))
            }
            guard case .unknownChallenge = replayed else { Issue.record("expected unknownChallenge, got \(replayed)"); return }

            // A rejected response and an unknown credential write nothing: not even the challenge's mark,
            // so an anonymous caller cannot make the server store anything without a valid passkey.
            let rejected = try await store.ceremonies.finishLogin(challenge: Self.used(21, now: now), credentialId: [3]) { _, _ in
                .reject(WebAuthnError(.signatureInvalid, in: .authentication))
            }
            guard case .rejected(let error, _) = rejected else { Issue.record("expected rejected, got \(rejected)"); return }
            #expect(error.code == "signature_invalid")
            let unknown = try await store.ceremonies.finishLogin(challenge: Self.used(22, now: now), credentialId: [99], decide: Self.accept(7, token: 3, now: now))
            guard case .unknownCredential = unknown else { Issue.record("expected unknownCredential, got \(unknown)"); return }
            #expect(try await store.usedChallengeCount() == 1)
            #expect(try await store.credential(id: [3])?.signCount == 6)

        }
    }

    @Test("50 concurrent finishes of one login challenge: exactly one opens a session", arguments: Backends.all)
    func finishLoginOnce(backend: String) async throws {
        try await Backends.with(backend) { store in
            let now = Date()
            _ = try await Self.loginReady(store, credentialId: 4, signCount: 0)
            let completed = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<50 {
                    group.addTask {
                        let outcome = try await store.ceremonies.finishLogin(challenge: Self.used(30, now: now), credentialId: [4], decide: Self.accept(0, token: UInt8(index), now: now))
                        if case .completed = outcome { return true }
                        return false
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(completed == 1)
        }
    }

    @Test("version 8 keys used challenges by expiry: the marks made before it still refuse a replay, and the purge still finds them",
          arguments: Backends.all)
    func usedChallengesKeyedByExpiry(backend: String) async throws {
        try await Backends.with(backend, migratedThrough: 7) { store in
            let now = Date()
            let challenge = Self.used(8, now: now)
            try await store.connections.withConnection { db in
                try await db.raw("""
                    INSERT INTO used_challenges (digest, expires_at)
                    VALUES (\(bind: Data(challenge.digest)), \(bind: Timestamp.milliseconds(challenge.expiresAt)))
                    """).run()
            }
            try await Migrations.run(on: store.connections)
            #expect(try await store.usedChallengeCount() == 1)
            let account = Self.account()
            await #expect(throws: Store.Failure.challengeUsed) {
                try await store.ceremonies.createAccount(account, credential: Self.credential([80], account: account.id), challenge: challenge)
            }
            #expect(try await store.account(id: account.id) == nil)
            // Another challenge with the same expiry is a different mark.
            let other = UsedChallenge(digest: ChallengeSealer.digest([81]), expiresAt: challenge.expiresAt)
            try await store.ceremonies.createAccount(account, credential: Self.credential([81], account: account.id), challenge: other)
            #expect(try await store.usedChallengeCount() == 2)
            try await store.purgeUsedChallenges(now: now + 300 + Store.usedChallengeGrace)
            #expect(try await store.usedChallengeCount() == 0)
        }
    }

    @Test("migrations run once: a database opens again in a newer start-up", arguments: Backends.all.filter { $0 != "sqlite-memory" })
    func migrationsIdempotent(backend: String) async throws {
        try await Backends.with(backend) { store in
            let account = Self.account()
            try await store.ceremonies.createAccount(account, credential: Self.credential([6], account: account.id))
            try await Migrations.run(on: store.connections)
            let versions = try await store.connections.withConnection { db in
                try await db.raw("SELECT version FROM schema_migrations").all().map { try $0.decode(column: "version", as: Int.self) }
            }
            #expect(versions.sorted() == Migrations.all.map(\.version))
            #expect(try await store.account(id: account.id) == account)
        }
    }

    @Test("a version-1 SQLite database upgrades: sessions keep their rows in a clustered table, pending ceremonies give way to sealed challenges")
    func upgradeFromVersionOne() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-upgrade-\(UUID().uuidString).sqlite")
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: url.path + suffix) } }
        let connections = try DatabaseConnections.open(.sqlite(path: url.path), logger: Logger(label: "test"))
        let store = Store(connections: connections)
        do {
            try await Migrations.run(on: connections, through: 1)
            let account = Self.account()
            let now = Date()
            // Rows as version 1 wrote them (today's store writes columns version 1 does not have).
            try await connections.withConnection { db in
                let created = Timestamp.milliseconds(now), expires = Timestamp.milliseconds(now + 60)
                try await db.raw("""
                    INSERT INTO accounts (id, user_handle, display_name, credo, created_at, updated_at)
                    VALUES (\(bind: account.id), \(bind: Data(account.userHandle)), 'Ada', '', \(bind: created), \(bind: created))
                    """).run()
                try await db.raw("""
                    INSERT INTO credentials (id, account_id, public_key, algorithm, sign_count, transports, aaguid, attestation_format,
                        backup_eligible, backup_state, uv_initialized, name, created_at, last_used_at)
                    VALUES (\(bind: Data([7])), \(bind: account.id), \(bind: Data([0xa5])), -7, 0, '', \(bind: Data(count: 16)), 'none', 1, 1, 1,
                        'Phone', \(bind: created), NULL)
                    """).run()
                try await db.raw("""
                    INSERT INTO sessions (token_hash, account_id, created_at, expires_at)
                    VALUES (\(bind: Data([7, 7])), \(bind: account.id), \(bind: created), \(bind: expires))
                    """).run()
                try await db.raw("""
                    INSERT INTO ceremonies (challenge, kind, expires_at) VALUES (\(bind: Data([7, 8])), 'login', \(bind: expires))
                    """).run()
            }

            try await Migrations.run(on: connections)
            // Version 3's columns: the old credential is not attestation-verified, the old session has no passkey.
            #expect(try await store.credential(id: [7])?.attestationVerified == false)
            #expect(try await store.sessionAccount(tokenHash: [7, 7], now: now) == account.id)
            let definitions = try await connections.withConnection { db in
                try await db.raw("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name IN ('sessions', 'ceremonies', 'used_challenges')").all()
                    .map { (try $0.decode(column: "name", as: String.self), try $0.decode(column: "sql", as: String.self)) }
            }
            #expect(definitions.map(\.0).sorted() == ["sessions", "used_challenges"], "version 4 drops the pending ceremonies")
            #expect(definitions.allSatisfy { $0.1.hasSuffix("WITHOUT ROWID") })
            // Deleting the account still takes its sessions with it.
            try await store.deleteAccount(id: account.id)
            #expect(try await store.sessionAccount(tokenHash: [7, 7], now: now) == nil)
        } catch {
            try? await connections.shutdown()
            throw error
        }
        try await connections.shutdown()
    }
}
