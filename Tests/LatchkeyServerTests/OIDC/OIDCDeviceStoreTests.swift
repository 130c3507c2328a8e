import Foundation
import Testing
@testable import LatchkeyServer

/// Issue 49's statements on every database (SQLite here, PostgreSQL too when LATCHKEY_TEST_POSTGRES_URL is
/// set): device authorizations bounded per requester and in all, decided once, polled with the interval
/// enforced and used once; client assertions' `jti` used once (`ON CONFLICT DO NOTHING` in an
/// `INSERT … SELECT … WHERE`), bounded per client, purged after their expiry.
extension StoreTests {
  @Suite struct OIDCDeviceAndAssertions {
    static let at = OIDCGrants.at

    static func record(_ user: String, requester: String = "198.51.100.7", at date: Date = at) -> OIDCDeviceRecord {
        OIDCDeviceRecord(
            deviceHash: SecretDigest.of("device-" + user), userHash: SecretDigest.of(user), clientId: "app", scopes: ["openid", "offline_access"],
            requester: requester, createdAt: date, expiresAt: date.addingTimeInterval(600), interval: 5)
    }

    static func poll(_ store: Store, _ user: String, client: String = "app", at date: Date) async throws -> OIDCDeviceStore.DevicePoll {
        try await store.oidcDeviceCodes.poll(
            deviceHash: SecretDigest.of("device-" + user), clientId: client, at: date, refreshHash: SecretDigest.of("refresh-" + user),
            expiry: { _ in date.addingTimeInterval(3600) }, events: { grant in [AuditOrigin.test.event(.oidcCodeExchanged, at: date, account: grant.accountId)] })
    }

    @Test("device codes: bounded per requester and in all, decided once, polled at the interval, used once", arguments: Backends.all)
    func deviceCodes(backend: String) async throws {
        try await Backends.with(backend) { store in
            let seeded = try await OIDCGrants.seed(store, offline: true)
            #expect(try await store.oidcDeviceCodes.insert(Self.record("A"), perRequester: 2, liveLimit: 3))
            #expect(try await !store.oidcDeviceCodes.insert(Self.record("A", requester: "other"), perRequester: 2, liveLimit: 3), "a live user code is unique")
            #expect(try await store.oidcDeviceCodes.insert(Self.record("B"), perRequester: 2, liveLimit: 3))
            #expect(try await !store.oidcDeviceCodes.insert(Self.record("C"), perRequester: 2, liveLimit: 3), "the requester holds 2")
            #expect(try await store.oidcDeviceCodes.insert(Self.record("C", requester: "other"), perRequester: 2, liveLimit: 3))
            #expect(try await !store.oidcDeviceCodes.insert(Self.record("D", requester: "third"), perRequester: 2, liveLimit: 3), "3 in all")

            #expect(try await Self.poll(store, "A", at: Self.at) == .pending)
            #expect(try await Self.poll(store, "A", at: Self.at.addingTimeInterval(2)) == .slowDown(interval: 10))
            #expect(try await Self.poll(store, "A", client: "other", at: Self.at.addingTimeInterval(30)) == .unknown)
            let grant = OIDCGrantRecord(
                id: UUID().uuidString, clientId: "app", accountId: seeded.accountId, sessionHash: nil, scopes: ["openid", "offline_access"],
                nonce: nil, authTime: Self.at, amr: ["hwk"], createdAt: Self.at, expiresAt: Self.at.addingTimeInterval(600))
            #expect(try await store.oidcDeviceCodes.decide(
                userHash: SecretDigest.of("A"), accountId: seeded.accountId, grant: grant, consent: ["openid", "offline_access"], at: Self.at,
                events: []))
            #expect(try await !store.oidcDeviceCodes.decide(
                userHash: SecretDigest.of("A"), accountId: seeded.accountId, grant: nil, consent: nil, at: Self.at, events: []), "decided once")
            guard case .issued(let issued) = try await Self.poll(store, "A", at: Self.at.addingTimeInterval(20)) else {
                Issue.record("not issued"); return
            }
            #expect(issued.id == grant.id && issued.expiresAt == Self.at.addingTimeInterval(3620))
            #expect(try await store.oidcGrants.grant(refreshHash: SecretDigest.of("refresh-A"))?.id == grant.id)
            #expect(try await Self.poll(store, "A", at: Self.at.addingTimeInterval(40)) == .unknown, "used once")

            #expect(try await store.oidcDeviceCodes.decide(
                userHash: SecretDigest.of("B"), accountId: seeded.accountId, grant: nil, consent: nil, at: Self.at, events: []))
            #expect(try await Self.poll(store, "B", at: Self.at) == .denied)
            #expect(try await Self.poll(store, "C", at: Self.at.addingTimeInterval(601)) == .expired)
            #expect(try await store.oidcDeviceCodes.purge(now: Self.at.addingTimeInterval(601)) == 1)
            // Expired: its user code may be drawn again.
            #expect(try await store.oidcDeviceCodes.insert(Self.record("C", at: Self.at.addingTimeInterval(700)), perRequester: 2, liveLimit: 3))
        }
    }

    @Test("client assertions: a jti once per client, bounded, purged after exp", arguments: Backends.all)
    func assertions(backend: String) async throws {
        try await Backends.with(backend) { store in
            _ = try await OIDCGrants.seed(store, offline: false)
            let exp = Self.at.addingTimeInterval(300)
            #expect(try await store.oidcClients.useAssertion(clientId: "app", jtiHash: SecretDigest.of("j1"), expiresAt: exp, at: Self.at, liveLimit: 2))
            #expect(try await !store.oidcClients.useAssertion(clientId: "app", jtiHash: SecretDigest.of("j1"), expiresAt: exp, at: Self.at, liveLimit: 2))
            #expect(try await store.oidcClients.useAssertion(clientId: "app", jtiHash: SecretDigest.of("j2"), expiresAt: exp, at: Self.at, liveLimit: 2))
            #expect(try await !store.oidcClients.useAssertion(clientId: "app", jtiHash: SecretDigest.of("j3"), expiresAt: exp, at: Self.at, liveLimit: 2))
            #expect(try await store.oidcClients.purgeAssertions(now: exp) == 2)
            #expect(try await store.oidcClients.useAssertion(clientId: "app", jtiHash: SecretDigest.of("j3"), expiresAt: exp + 300, at: exp, liveLimit: 2))
        }
    }
  }
}
