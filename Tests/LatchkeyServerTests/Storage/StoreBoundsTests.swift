import Foundation
@testable import LatchkeyTransport
import Testing
@testable import LatchkeyServer

/// What one caller can make the store keep is bounded, on every database (the fourth review): device
/// requests per requester (S4-3), OpenID Connect grants per session and per account and client, with the
/// apps list aggregated by the database (S4-4), routine audit events per account and hour (S4-14), and a
/// username once used never passes to another account (S4-5). Part of the storage suite, which runs its
/// tests one at a time (they share one PostgreSQL database).
extension StoreTests {
  @Suite struct Bounds {
    static let at = Date(timeIntervalSince1970: 1_800_000_000)

    static func deviceRequest(_ n: Int, at: Date = at) -> DeviceRequestRecord {
        DeviceRequestRecord(
            id: "request-\(n)", codeHash: SecretDigest.of("code-\(n)"), secretHash: SecretDigest.of("secret-\(n)"), createdAt: at,
            expiresAt: at.addingTimeInterval(300), userAgent: nil, clientAddress: nil)
    }

    @Test("a requester holds at most its share of live device requests, its newest; others still get theirs", arguments: Backends.all)
    func deviceRequestsPerRequester(backend: String) async throws {
        try await Backends.with(backend) { store in
            for n in 0..<25 {
                let made = try await store.deviceRequests.insert(
                    Self.deviceRequest(n, at: Self.at.addingTimeInterval(Double(n))), requester: "198.51.100.7", perRequester: 10, liveLimit: 30)
                #expect(made, "request \(n)")
            }
            #expect(try await store.deviceRequests.request(id: "request-14") == nil, "the requester's oldest made room")
            #expect(try await store.deviceRequests.request(id: "request-15") != nil)
            #expect(try await store.deviceRequests.request(id: "request-24") != nil)
            // 10 live of 30 allowed in all: another requester's go in until the global limit.
            for n in 100..<120 {
                #expect(try await store.deviceRequests.insert(Self.deviceRequest(n), requester: "2001:db8:1:2::/64", perRequester: 100, liveLimit: 30))
            }
            #expect(try await !store.deviceRequests.insert(Self.deviceRequest(200), requester: "203.0.113.9", perRequester: 10, liveLimit: 30))
            #expect(RateLimitClient(text: "2001:db8:1:2:aaaa::1")?.requesterKey == "2001:db8:1:2::/64")
            #expect(RateLimitClient(text: "::ffff:198.51.100.7")?.requesterKey == "198.51.100.7")
        }
    }

    static func grant(_ n: Int, account: String, session: String?, at: Date = at) -> OIDCGrantRecord {
        OIDCGrantRecord(
            id: "grant-\(n)", clientId: "app", accountId: account, sessionHash: session.map(SecretDigest.of), scopes: n % 2 == 0 ? ["openid"] : ["openid", "email"],
            nonce: nil, authTime: at, amr: ["hwk"], createdAt: at, expiresAt: at.addingTimeInterval(60))
    }

    static func authorize(_ store: Store, _ grant: OIDCGrantRecord) async throws {
        try await store.oidcGrants.issueCode(
            grant: grant, code: OIDCCodeRecord(
                codeHash: SecretDigest.of("code-\(grant.id)"), grantId: grant.id, redirectURI: "https://app.example/cb", codeChallenge: nil,
                expiresAt: grant.expiresAt),
            consent: nil, events: [AuditOrigin.test.event(.oidcAuthorized, at: grant.createdAt, account: grant.accountId)])
    }

    @Test("an authorization replaces its session's pending grant; live grants per account and client are bounded; the apps list is one row per client", arguments: Backends.all)
    func grantsPerSessionAndClient(backend: String) async throws {
        try await Backends.with(backend) { store in
            let account = StoreTests.account()
            try await store.ceremonies.createAccount(account, credential: StoreTests.credential(Array(account.id.utf8), account: account.id))
            #expect(try await store.oidcClients.insert(StoreTests.OIDCGrants.client(), event: AuditOrigin.test.event(.oidcClientCreated, at: Self.at, account: nil)))
            for n in 0..<30 {
                try await Self.authorize(store, Self.grant(n, account: account.id, session: "one session", at: Self.at.addingTimeInterval(Double(n))))
            }
            #expect(try await store.oidcGrants.live(id: "grant-28", at: Self.at) == nil, "replaced by the next authorization")
            #expect(try await store.oidcGrants.live(id: "grant-29", at: Self.at) != nil)
            // From 60 sessions: at most `liveGrantsPerClient` stay live, the newest.
            for n in 100..<160 {
                try await Self.authorize(store, Self.grant(n, account: account.id, session: "session \(n)", at: Self.at.addingTimeInterval(30)))
            }
            var live = 0
            for n in [29] + Array(100..<160) where try await store.oidcGrants.live(id: "grant-\(n)", at: Self.at) != nil { live += 1 }
            #expect(live == OIDCGrantStore.liveGrantsPerClient)
            #expect(try await store.oidcGrants.live(id: "grant-159", at: Self.at) != nil)

            let apps = try await store.oidcApps.apps(accountId: account.id, now: Self.at)
            #expect(apps.count == 1)
            #expect(apps.first?.scopes == ["openid", "email"], "the live grants' scopes together")
            #expect(apps.first?.consentedAt == Self.at.addingTimeInterval(29), "the earliest grant on record (the replaced ones are gone)")
            #expect(apps.first?.lastUsedAt == Self.at.addingTimeInterval(30))
            // Revoked grants are purged a day after their revocation.
            #expect(try await store.oidcGrants.purge(now: Self.at.addingTimeInterval(86_400 + 1000)) == 61)
        }
    }

    @Test("routine events are written at most 20 times per account and hour; changes always", arguments: Backends.all)
    func routineAuditEvents(backend: String) async throws {
        try await Backends.with(backend) { store in
            let account = StoreTests.account()
            try await store.ceremonies.createAccount(account, credential: StoreTests.credential(Array(account.id.utf8), account: account.id))
            for n in 0..<30 {
                try await store.record(AuditOrigin.test.event(.accessTokenIssued, at: Self.at.addingTimeInterval(Double(n)), account: account.id))
                try await store.record(AuditOrigin.test.event(.sessionEnded, at: Self.at.addingTimeInterval(Double(n)), account: account.id))
            }
            let issued = try await store.auditEvents(Store.AuditQuery(accountId: account.id, kind: .accessTokenIssued, limit: 100))
            let ended = try await store.auditEvents(Store.AuditQuery(accountId: account.id, kind: .sessionEnded, limit: 100))
            #expect(issued.count == 20 && ended.count == 30, "\(issued.count) \(ended.count)")
            // An hour later the account's routine events are written again.
            try await store.record(AuditOrigin.test.event(.accessTokenIssued, at: Self.at.addingTimeInterval(3700), account: account.id))
            #expect(try await store.auditEvents(Store.AuditQuery(accountId: account.id, kind: .accessTokenIssued, limit: 100)).count == 21)
        }
    }

    @Test("a username once held is never given to another account, even after its holder let it go or was deleted", arguments: Backends.all)
    func usernamesStayWithTheirFirstHolder(backend: String) async throws {
        try await Backends.with(backend) { store in
            let alice = StoreTests.account(), bob = StoreTests.account()
            for account in [alice, bob] {
                try await store.ceremonies.createAccount(account, credential: StoreTests.credential(Array(account.id.utf8), account: account.id))
            }
            func set(_ account: AccountRecord, _ name: String?) async throws -> Bool {
                do {
                    return try await store.changeProfile(
                        accountId: account.id, .username(name), at: Self.at, event: AuditOrigin.test.event(.accountUpdated, at: Self.at, account: account.id))
                } catch Store.Failure.duplicate {
                    return false
                }
            }
            #expect(try await set(alice, "alice"))
            #expect(try await !set(bob, "alice"), "held")
            #expect(try await set(alice, nil))
            #expect(try await !set(bob, "alice"), "released, and still Alice's")
            #expect(try await set(alice, "alice"), "its first holder takes it back")
            #expect(try await set(alice, "alice.l"))
            #expect(try await store.deleteAccount(id: alice.id, event: AuditOrigin.test.event(.accountDeleted, at: Self.at, account: alice.id)))
            #expect(try await !set(bob, "alice.l"), "the account is gone; the name stays taken")
            #expect(try await set(bob, "bob"))
        }
    }
}
}
