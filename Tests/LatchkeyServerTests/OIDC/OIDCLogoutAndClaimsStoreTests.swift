import Foundation
import Logging
import Testing
@testable import LatchkeyServer

/// Issue 49's back-channel logout outbox and custom claims on every database (PostgreSQL too when
/// LATCHKEY_TEST_POSTGRES_URL is set): a session's end queues one token per client with a back-channel
/// URI, claimed once under a lease (`FOR UPDATE SKIP LOCKED` on PostgreSQL), put off, then finished; claims
/// of an account and its groups released with the account's first, a group whose name only LIKE-matches
/// (`_`) left out, and the per-holder bound kept.
extension StoreTests {
  @Suite struct OIDCLogoutAndClaims {
    @Test("a session's end queues a logout token for the client with a back-channel URI; it is claimed once, retried, finished", arguments: Backends.all)
    func logoutOutbox(backend: String) async throws {
        try await Backends.with(backend) { store in
            let at = OIDCGrants.at
            let account = StoreTests.account()
            try await store.ceremonies.createAccount(account, credential: StoreTests.credential(Array(account.id.utf8), account: account.id))
            var client = OIDCGrants.client("bcl")
            client.backchannelLogoutURI = "https://rp.example/bcl"
            #expect(try await store.oidcClients.insert(client, event: AuditOrigin.test.event(.oidcClientCreated, at: at, account: nil)))
            #expect(try await store.oidcClients.insert(OIDCGrants.client("quiet"), event: AuditOrigin.test.event(.oidcClientCreated, at: at, account: nil)))
            let session = SecretDigest.of("session-token")
            for (index, id) in ["bcl", "bcl", "quiet"].enumerated() {
                let grant = OIDCGrantRecord(
                    id: "grant-\(index)", clientId: id, accountId: account.id, sessionHash: session, scopes: ["openid"], nonce: nil,
                    authTime: at, amr: ["hwk"], createdAt: at, expiresAt: at.addingTimeInterval(60))
                try await store.oidcGrants.issueCode(
                    grant: grant, code: OIDCCodeRecord(
                        codeHash: SecretDigest.of("code-\(index)"), grantId: grant.id, redirectURI: "https://app.example/cb", codeChallenge: nil,
                        expiresAt: at.addingTimeInterval(60)),
                    consent: ["openid"], events: [])
            }
            try await store.deleteSession(tokenHash: session, at: Date(), event: nil)
            #expect(try await store.pendingOIDCLogoutCount() == 1, "one token for the one client with a URI, however many grants")
            let now = Date().addingTimeInterval(1)
            let due = try await store.claimOIDCLogouts(now: now, leaseUntil: now.addingTimeInterval(60), limit: 10)
            #expect(due.count == 1 && due.first?.clientId == "bcl" && due.first?.accountId == account.id && due.first?.attempt == 1)
            #expect(due.first?.sid == OIDCSessionID.of(sessionHash: session))
            #expect(try await store.claimOIDCLogouts(now: now, leaseUntil: now.addingTimeInterval(60), limit: 10).isEmpty, "leased")
            let jti = try #require(due.first?.jti)
            try await store.retryOIDCLogout(jti: jti, next: now, error: "HTTP 503")
            let again = try await store.claimOIDCLogouts(now: now, leaseUntil: now.addingTimeInterval(60), limit: 10)
            #expect(again.map(\.jti) == [jti] && again.first?.attempt == 2, "the same jti, the next attempt")
            try await store.finishOIDCLogout(jti: jti)
            #expect(try await store.pendingOIDCLogoutCount() == 0)
        }
    }

    @Test("a session's end queues at the injected clock's time; a store that queues none (OpenID Connect off) leaves the outbox empty, and its purge empties it", arguments: Backends.all)
    func outboxClockAndOff(backend: String) async throws {
        try await Backends.with(backend) { store in
            let later = Date().addingTimeInterval(3600)
            let account = StoreTests.account()
            try await store.ceremonies.createAccount(account, credential: StoreTests.credential(Array(account.id.utf8), account: account.id))
            var client = OIDCGrants.client("bcl")
            client.backchannelLogoutURI = "https://rp.example/bcl"
            #expect(try await store.oidcClients.insert(client, event: AuditOrigin.test.event(.oidcClientCreated, at: later, account: nil)))
            func signIn(_ token: String, index: Int) async throws -> [UInt8] {
                let session = SecretDigest.of(token)
                try await store.insertSession(NewSession(
                    tokenHash: session, accountId: account.id, credentialId: Array(account.id.utf8), createdAt: Date(), expiresAt: later, userVerified: true))
                let grant = OIDCGrantRecord(
                    id: "grant-\(index)", clientId: "bcl", accountId: account.id, sessionHash: session, scopes: ["openid"], nonce: nil,
                    authTime: Date(), amr: ["hwk"], createdAt: Date(), expiresAt: later)
                try await store.oidcGrants.issueCode(
                    grant: grant, code: OIDCCodeRecord(
                        codeHash: SecretDigest.of("code-\(index)"), grantId: grant.id, redirectURI: "https://app.example/cb", codeChallenge: nil,
                        expiresAt: later),
                    consent: ["openid"], events: [])
                return session
            }
            try await store.deleteSession(tokenHash: try await signIn("one", index: 1), at: later, event: nil)
            let soon = Date().addingTimeInterval(1)
            #expect(try await store.claimOIDCLogouts(now: soon, leaseUntil: soon.addingTimeInterval(60), limit: 10).isEmpty, "not due by the wall clock")
            #expect(try await store.claimOIDCLogouts(now: later, leaseUntil: later.addingTimeInterval(60), limit: 10).count == 1, "due at the clock given")

            let off = Store(connections: store.connections, queuesOIDCLogouts: false)
            try await off.deleteSession(tokenHash: try await signIn("two", index: 2), at: later, event: nil)
            #expect(try await store.pendingOIDCLogoutCount() == 1, "nothing queued with OpenID Connect off")
            // Its housekeeping empties what an earlier run (or `latchkey admin`) queued; with OpenID Connect on it keeps it.
            #expect(try await Housekeeping(store: store, connections: store.connections, logger: Logger(label: "test"), interval: 0).runOnce(now: Date()))
            #expect(try await store.pendingOIDCLogoutCount() == 1)
            #expect(try await Housekeeping(store: off, connections: store.connections, logger: Logger(label: "test"), interval: 0).runOnce(now: Date()))
            #expect(try await store.pendingOIDCLogoutCount() == 0)
        }
    }

    @Test("an account's claims over its groups', a group that only LIKE-matches left out, at most the limit", arguments: Backends.all)
    func claims(backend: String) async throws {
        try await Backends.with(backend) { store in
            let at = OIDCGrants.at
            let account = StoreTests.account()
            try await store.ceremonies.createAccount(account, credential: StoreTests.credential(Array(account.id.utf8), account: account.id))
            func set(_ name: String, _ value: String, _ holder: OIDCClaimStore.ClaimHolder, limit: Int = 32) async throws -> OIDCClaimStore.ClaimSet {
                try await store.oidcClaims.set(
                    OIDCCustomClaim(name: name, value: value, scope: "profile", updatedAt: at), of: holder, limit: limit,
                    event: AuditOrigin.test.event(.oidcClaimSet, at: at, account: nil))
            }
            #expect(try await set("department", "own", .account(account.id)) == .stored)
            #expect(try await set("department", "group", .group("staff")) == .stored)
            #expect(try await set("team", "blue", .group("staff")) == .stored)
            #expect(try await set("floor", "3", .group("st_ff")) == .stored)
            #expect(try await set("department", "nobody", .account("missing")) == .unknownAccount)
            #expect(try await set("extra", "x", .group("staff"), limit: 2) == .full)
            #expect(try await set("team", "green", .group("staff"), limit: 2) == .stored, "replacing one is not one more")
            let released = try await store.oidcClaims.released(accountId: account.id, groups: ["staff"])
            #expect(released.map { "\($0.name)=\($0.value)" } == ["department=own", "team=green"])
            #expect(try await store.oidcClaims.remove(named: "team", of: .group("staff"), event: AuditOrigin.test.event(.oidcClaimRemoved, at: at, account: nil)))
            #expect(try await !store.oidcClaims.remove(named: "team", of: .group("staff"), event: AuditOrigin.test.event(.oidcClaimRemoved, at: at, account: nil)))
            #expect(try await store.oidcClaims.claims(of: .group("staff")).map(\.name) == ["department"])
        }
    }
  }
}
