import Foundation
import Testing
@testable import LatchkeyServer

/// The OpenID Connect grants in the store, on every database: a code is redeemed once, and a second
/// redemption revokes the grant; a check that fails leaves the code for its rightful client; a refresh
/// token rotates, and a rotated one presented again ends the grant (and with it the newer token);
/// another client's refresh token is refused without touching the grant. Part of the storage suite, which
/// runs its tests one at a time (they share one PostgreSQL database).
extension StoreTests {
  @Suite struct OIDCGrants {
    static let at = Date(timeIntervalSince1970: 1_800_000_000)

    static func client(_ id: String = "app") -> OIDCClientRecord {
        OIDCClientRecord(
            id: id, name: "App", secretHash: SecretDigest.of("secret"), redirectURIs: ["https://app.example/cb"], postLogoutURIs: [],
            idTokenAlgorithm: "ES256", firstParty: false, scopes: OIDCScope.supported, allowedGroups: [], createdAt: at, updatedAt: at,
            createdBy: "test")
    }

    /// An account, a client and a grant with a code ("code-1"), offline or not.
    static func seed(_ store: Store, offline: Bool) async throws -> OIDCGrantRecord {
        let account = StoreTests.account()
        try await store.ceremonies.createAccount(account, credential: StoreTests.credential(Array(account.id.utf8), account: account.id))
        #expect(try await store.oidcClients.insert(client(), event: AuditOrigin.test.event(.oidcClientCreated, at: at, account: nil)))
        let grant = OIDCGrantRecord(
            id: UUID().uuidString, clientId: "app", accountId: account.id, sessionHash: nil,
            scopes: offline ? ["openid", "offline_access"] : ["openid"], nonce: "n", authTime: at, amr: ["hwk", "user"], createdAt: at,
            expiresAt: at.addingTimeInterval(60))
        try await store.oidcGrants.issueCode(
            grant: grant, code: OIDCCodeRecord(
                codeHash: SecretDigest.of("code-1"), grantId: grant.id, redirectURI: "https://app.example/cb", codeChallenge: nil,
                expiresAt: at.addingTimeInterval(60)),
            consent: ["openid"], events: [AuditOrigin.test.event(.oidcAuthorized, at: at, account: account.id)])
        return grant
    }

    static func redeem(_ store: Store, accepts: Bool = true, at date: Date = at) async throws -> OIDCGrantStore.CodeRedemption {
        try await store.oidcGrants.redeemCode(
            codeHash: SecretDigest.of("code-1"), at: date, accepts: { _, _ in accepts }, refreshHash: SecretDigest.of("refresh-1"),
            expiry: { _ in date.addingTimeInterval(3600) },
            events: { grant, reused in [AuditOrigin.test.event(reused ? .oidcCodeReused : .oidcCodeExchanged, at: date, account: grant.accountId)] })
    }

    static func rotate(_ store: Store, _ old: String, _ new: String, client: String = "app", at date: Date = at) async throws -> OIDCGrantStore.RefreshRotation {
        try await store.oidcGrants.rotateRefreshToken(
            hash: SecretDigest.of(old), newHash: SecretDigest.of(new), clientId: client, at: date, expiresAt: date.addingTimeInterval(3600),
            events: { grant, reused in [AuditOrigin.test.event(reused ? .oidcRefreshReused : .oidcRefreshRotated, at: date, account: grant.accountId)] })
    }

    @Test("a code is redeemed once; the second redemption revokes its grant", arguments: Backends.all)
    func codeReuse(backend: String) async throws {
        try await Backends.with(backend) { store in
            let grant = try await Self.seed(store, offline: false)
            // A failed check (another client, verifier or redirect URI) leaves the code usable.
            #expect(try await Self.redeem(store, accepts: false) == .refused)
            guard case .redeemed(let redeemed) = try await Self.redeem(store) else { Issue.record("not redeemed"); return }
            #expect(redeemed.id == grant.id)
            #expect(try await store.oidcGrants.live(id: grant.id, at: Self.at) != nil)
            #expect(try await Self.redeem(store) == .reused)
            #expect(try await store.oidcGrants.live(id: grant.id, at: Self.at) == nil, "the grant is revoked by the replay")
            // Without offline_access there is no refresh token.
            #expect(try await store.oidcGrants.grant(refreshHash: SecretDigest.of("refresh-1")) == nil)
        }
    }

    @Test("an expired code is refused and revokes nothing", arguments: Backends.all)
    func expiredCode(backend: String) async throws {
        try await Backends.with(backend) { store in
            _ = try await Self.seed(store, offline: false)
            #expect(try await Self.redeem(store, at: Self.at.addingTimeInterval(61)) == .refused)
        }
    }

    @Test("refresh tokens rotate; a rotated one presented again ends the grant and the newer token", arguments: Backends.all)
    func refreshReuse(backend: String) async throws {
        try await Backends.with(backend) { store in
            let grant = try await Self.seed(store, offline: true)
            guard case .redeemed = try await Self.redeem(store) else { Issue.record("not redeemed"); return }
            // Another client's attempt is refused and changes nothing.
            #expect(try await Self.rotate(store, "refresh-1", "stolen", client: "other") == .refused)
            guard case .rotated = try await Self.rotate(store, "refresh-1", "refresh-2") else { Issue.record("not rotated"); return }
            guard case .rotated = try await Self.rotate(store, "refresh-2", "refresh-3") else { Issue.record("not rotated"); return }
            #expect(try await Self.rotate(store, "refresh-1", "refresh-x") == .reused)
            #expect(try await store.oidcGrants.live(id: grant.id, at: Self.at) == nil)
            #expect(try await Self.rotate(store, "refresh-3", "refresh-4") == .refused, "the newest token died with its grant")
        }
    }

    @Test("a refresh asking for a wider scope is refused before anything changes; the token still works (review 4, S4-7)", arguments: Backends.all)
    func widerRefreshScope(backend: String) async throws {
        try await Backends.with(backend) { store in
            let grant = try await Self.seed(store, offline: true)
            guard case .redeemed = try await Self.redeem(store) else { Issue.record("not redeemed"); return }
            func rotate(asking: Set<String>?, _ old: String, _ new: String) async throws -> OIDCGrantStore.RefreshRotation {
                try await store.oidcGrants.rotateRefreshToken(
                    hash: SecretDigest.of(old), newHash: SecretDigest.of(new), clientId: "app", asking: asking, at: Self.at,
                    expiresAt: Self.at.addingTimeInterval(3600), events: { _, _ in [] })
            }
            #expect(try await rotate(asking: ["openid", "email"], "refresh-1", "refresh-2") == .scopeRefused)
            #expect(try await store.oidcGrants.live(id: grant.id, at: Self.at) != nil, "nothing was revoked")
            guard case .rotated(let rotated) = try await rotate(asking: ["openid"], "refresh-1", "refresh-2") else {
                Issue.record("the refused refresh burned the token"); return
            }
            #expect(rotated.narrowed(to: ["openid"]).scopes == ["openid"])
            #expect(rotated.scopes == ["openid", "offline_access"], "the grant keeps its whole scope")
            // A used token presented with a wider scope is still a replay: the grant ends.
            #expect(try await rotate(asking: ["openid", "email"], "refresh-1", "refresh-x") == .reused)
        }
    }

    @Test("a client's secret changed or dropped by an update revokes its grants and pending codes (review 4, S4-6)", arguments: Backends.all)
    func publicSwitchRevokes(backend: String) async throws {
        try await Backends.with(backend) { store in
            let grant = try await Self.seed(store, offline: true)
            var client = Self.client()
            client.secretHash = nil
            let revoked = try await store.oidcClients.update(client, secretChanged: true) { revoked in
                AuditOrigin.test.event(.oidcClientUpdated, at: Self.at, account: nil, detail: ["grantsRevoked": .number(revoked ?? -1)])
            }
            #expect(revoked == 1)
            #expect(try await store.oidcGrants.live(id: grant.id, at: Self.at) == nil)
            #expect(try await Self.redeem(store) == .refused, "the pending code died with its grant")
            let event = try await store.auditEvents(Store.AuditQuery(kind: .oidcClientUpdated, limit: 1)).first
            #expect(event?.detail.contains("\"grantsRevoked\":1") == true, "\(String(describing: event))")
            // Another update that leaves the secret alone revokes nothing.
            #expect(try await store.oidcClients.update(client, secretChanged: false) { _ in AuditOrigin.test.event(.oidcClientUpdated, at: Self.at, account: nil) } == 0)
        }
    }

    @Test("of 20 concurrent redemptions of one code exactly one succeeds, and the grant ends", arguments: Backends.all)
    func concurrentRedemption(backend: String) async throws {
        try await Backends.with(backend) { store in
            let grant = try await Self.seed(store, offline: true)
            let outcomes = try await withThrowingTaskGroup(of: OIDCGrantStore.CodeRedemption.self) { group in
                for _ in 0..<20 { group.addTask { try await Self.redeem(store) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(outcomes.filter { if case .redeemed = $0 { true } else { false } }.count == 1)
            #expect(outcomes.filter { $0 == .reused }.count == 19)
            #expect(try await store.oidcGrants.live(id: grant.id, at: Self.at) == nil)
        }
    }

    @Test("removing a client removes its grants, codes and refresh tokens", arguments: Backends.all)
    func clientRemoval(backend: String) async throws {
        try await Backends.with(backend) { store in
            let grant = try await Self.seed(store, offline: true)
            guard case .redeemed = try await Self.redeem(store) else { Issue.record("not redeemed"); return }
            #expect(try await store.oidcClients.delete(id: "app", event: AuditOrigin.test.event(.oidcClientRemoved, at: Self.at, account: nil)))
            #expect(try await store.oidcGrants.live(id: grant.id, at: Self.at) == nil)
            #expect(try await store.oidcGrants.grant(refreshHash: SecretDigest.of("refresh-1")) == nil)
        }
    }
}
}
