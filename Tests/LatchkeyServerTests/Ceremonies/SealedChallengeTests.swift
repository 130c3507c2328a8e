import Foundation
@testable import LatchkeyDatabase
import SoftAuthenticator
import Testing
import WebAuthn
@testable import LatchkeyServer

/// Sealed challenges (issues 12 and 16): the ceremony rides in its challenge, options write nothing, a
/// challenge completes one ceremony, on any instance that shares the database.
@Suite("Sealed challenges")
struct SealedChallengeTests {
    static let key = [UInt8](repeating: 7, count: 32)
    static let now = Date(timeIntervalSince1970: 1_800_000_000)

    static func ceremony(_ kind: PendingCeremony.Kind = .registration, expiresAt: Date = now + 300) -> PendingCeremony {
        PendingCeremony(kind: kind, accountId: "acc-1", userHandle: [1, 2, 3], displayName: "Ada ✨ Lovelace", expiresAt: expiresAt)
    }

    @Test("a sealed ceremony opens to itself, every field and absence intact; two seals of one ceremony differ")
    func roundTrip() throws {
        let sealer = try ChallengeSealer(key: Self.key, rpId: "example.com")
        let full = Self.ceremony()
        let first = sealer.seal(full)
        #expect(sealer.open(first, now: Self.now) == PendingCeremony(
            kind: .registration, accountId: "acc-1", userHandle: [1, 2, 3], displayName: "Ada ✨ Lovelace",
            expiresAt: Timestamp.date(Timestamp.milliseconds(full.expiresAt))))
        #expect(sealer.seal(full) != first, "a fresh nonce and random field each time")
        let login = PendingCeremony(kind: .login, accountId: nil, userHandle: nil, displayName: nil, expiresAt: Self.now + 60)
        let sealed = sealer.seal(login)
        #expect(sealed.count == 60, "a login challenge is 60 bytes")
        #expect(sealer.open(sealed, now: Self.now) == login)
    }

    @Test("any changed bit, another key, another relying party, the wrong version or expiry: nothing opens")
    func refusals() throws {
        let sealer = try ChallengeSealer(key: Self.key, rpId: "example.com")
        let sealed = sealer.seal(Self.ceremony())
        for index in sealed.indices {
            for bit in 0..<8 {
                var changed = sealed
                changed[index] ^= UInt8(1 << bit)
                #expect(sealer.open(changed, now: Self.now) == nil, "bit \(bit) of byte \(index)")
            }
        }
        #expect(try ChallengeSealer(key: [UInt8](repeating: 8, count: 32), rpId: "example.com").open(sealed, now: Self.now) == nil)
        #expect(try ChallengeSealer(key: Self.key, rpId: "other.example").open(sealed, now: Self.now) == nil)
        #expect(sealer.open(sealed, now: Self.now + 300) == nil, "expired at its expiry")
        #expect(sealer.open(sealed, now: Self.now + 299.9) != nil)
        for cut in [0, 1, 13, 29, sealed.count - 1] {
            #expect(sealer.open(Array(sealed.prefix(cut)), now: Self.now) == nil, "cut to \(cut) bytes")
        }
        #expect(sealer.open(sealed + [0], now: Self.now) == nil)
        #expect(sealer.open(RandomBytes.make(32), now: Self.now) == nil, "an old-style random challenge")
        #expect(throws: ServerConfiguration.Invalid.self) { try ChallengeSealer(key: [1, 2, 3], rpId: "example.com") }
    }

    @Test("options write nothing: 2 000 login and 500 registration options leave every table as it was")
    func optionsWriteNothing() async throws {
        try await TestServer.withApplication { api, latchkey in
            for _ in 0..<2_000 { #expect(try await api.send(.post, "/api/login/options").status == .ok) }
            for index in 0..<500 {
                #expect(try await api.send(.post, "/api/registration/options", object: ["displayName": "Flood \(index)"]).status == .ok)
            }
            #expect(try await Self.rowCounts(latchkey.store) == ["accounts": 0, "credentials": 0, "sessions": 0, "used_challenges": 0, "server_keys": 1])

            // A garbage finish with a genuine challenge writes nothing either.
            let phone = SoftAuthenticator(store: InMemoryCredentialStore())
            let stranger = SoftAuthenticator(store: InMemoryCredentialStore())
            _ = try await api.register("Ada", with: phone)
            _ = try await api.register("Eve", with: stranger)
            let counts = try await Self.rowCounts(latchkey.store)
            #expect(counts["used_challenges"] == 2, "each completed registration marked its challenge")
            var forged = try await api.loginResponse(with: phone)
            forged.response.signature = Base64URL.encode([UInt8](repeating: 0x30, count: 70))
            let refused = try await api.send(.post, "/api/login/verify", json: ["credential": forged])
            #expect(refused.errorCode == "signature_invalid")
            #expect(try await Self.rowCounts(latchkey.store) == counts)
        }
    }

    @Test("a challenge completes one login: a replay after success is unknown_challenge; a failed finish leaves it usable until expiry")
    func singleUse() async throws {
        try await TestServer.run { api in
            let phone = SoftAuthenticator(store: InMemoryCredentialStore())
            _ = try await api.register("Ada", with: phone)
            let options = try api.requestOptions(try await api.send(.post, "/api/login/options"))
            let good = try phone.getAssertion(options, origin: TestServer.origin)
            var forged = good
            forged.response.signature = Base64URL.encode([UInt8](repeating: 0x30, count: 70))
            #expect(try await api.send(.post, "/api/login/verify", json: ["credential": forged]).errorCode == "signature_invalid")
            #expect(try await api.send(.post, "/api/login/verify", json: ["credential": good]).status == .ok)
            #expect(try await api.send(.post, "/api/login/verify", json: ["credential": good]).errorCode == "unknown_challenge")
        }
    }

    @Test("started on one instance, finished on another: two servers on one database share the key")
    func anyInstance() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-sealed-\(UUID().uuidString).sqlite").path
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
        let configuration = TestServer.configuration { $0.database = .sqlite(path: path) }
        let phone = SoftAuthenticator(store: InMemoryCredentialStore())
        let registration = try await Self.onInstance(configuration) { api in
            try api.creationOptions(try await api.send(.post, "/api/registration/options", object: ["displayName": "Ada"]))
        }
        let credential = try phone.makeCredential(registration, origin: TestServer.origin)
        let loginOptions = try await Self.onInstance(configuration) { api in
            #expect(try await api.send(.post, "/api/registration/verify", json: ["credential": credential]).status == .created)
            return try api.requestOptions(try await api.send(.post, "/api/login/options"))
        }
        let assertion = try phone.getAssertion(loginOptions, origin: TestServer.origin)
        try await Self.onInstance(configuration) { (api: APIClient) async throws -> Void in
            #expect(try await api.send(.post, "/api/login/verify", json: ["credential": assertion]).status == .ok)
            #expect(try await api.send(.post, "/api/registration/verify", json: ["credential": credential]).errorCode == "unknown_challenge")
        }
    }

    /// Runs `body` against a server instance of its own on `configuration`'s database.
    static func onInstance<T: Sendable>(_ configuration: ServerConfiguration, _ body: @escaping @Sendable (APIClient) async throws -> T) async throws -> T {
        let box = ResultBox<T>()
        try await TestServer.run(configuration) { api in box.value = try await body(api) }
        return try #require(box.value)
    }

    final class ResultBox<T: Sendable>: @unchecked Sendable {
        var value: T?
    }

    static func rowCounts(_ store: Store) async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for table in ["accounts", "credentials", "sessions", "used_challenges", "server_keys"] {
            counts[table] = try await store.connections.withConnection { db in
                try await db.raw("SELECT count(*) AS n FROM \(unsafeRaw: table)").first()?.decode(column: "n", as: Int.self) ?? -1
            }
        }
        return counts
    }
}
