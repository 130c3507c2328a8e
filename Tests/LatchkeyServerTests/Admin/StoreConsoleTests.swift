import Foundation
import Testing
@testable import LatchkeyServer

/// The admin console's storage on every backend (SQLite, and PostgreSQL where the swift-tests stage gives
/// one): a role granted, its scopes replaced, revoked with the account's console sessions; a console session
/// found only while live, its account enabled and an administrator; the setup link used once, and only
/// while no administrator exists. An extension of `StoreTests` so that they share its serialization.
extension StoreTests {
    @Test("roles, console sessions and setup links in the store", arguments: Backends.all)
    func consoleStorage(backend: String) async throws {
        try await Backends.with(backend) { store in
            let account = Self.account()
            try await store.ceremonies.createAccount(account, credential: Self.credential([8, 8, 1], account: account.id))
            let now = Date(timeIntervalSince1970: 1_800_000_000)

            // The first administrator, through a setup link.
            let code = "setup-code"
            try await store.adminRoles.insertSetupLink(secretHash: SecretDigest.of(code), at: now, expiresAt: now + 3600)
            let first = AdminRole(accountId: account.id, scopes: .all, grantedAt: now, grantedBy: "setup")
            #expect(try await !store.adminRoles.useSetupLink(secretHash: SecretDigest.of("wrong"), role: first, now: now, event: Self.event(.adminGranted)))
            #expect(try await !store.adminRoles.useSetupLink(secretHash: SecretDigest.of(code), role: first, now: now + 3600, event: Self.event(.adminGranted)), "expired")
            #expect(try await store.adminRoles.useSetupLink(secretHash: SecretDigest.of(code), role: first, now: now, event: Self.event(.adminGranted)))
            #expect(try await !store.adminRoles.useSetupLink(secretHash: SecretDigest.of(code), role: first, now: now, event: Self.event(.adminGranted)), "once")
            #expect(try await store.adminRoles.role(accountId: account.id)?.scopes == .all)

            // Scopes replaced in place.
            let reader = AdminRole(accountId: account.id, scopes: AdminScopes([.read]), grantedAt: now + 1, grantedBy: "cli")
            #expect(try await store.adminRoles.grant(reader, event: Self.event(.adminGranted)))
            #expect(try await store.adminRoles.all() == [reader])
            #expect(try await !store.adminRoles.grant(AdminRole(accountId: "nobody", scopes: .all, grantedAt: now, grantedBy: "cli"), event: Self.event(.adminGranted)))

            // A console session: live, then its step-up, then gone with the role.
            let hash = SecretDigest.of("lkc_token")
            try await store.consoleSessions.insert(
                tokenHash: hash, accountId: account.id, credentialId: [8, 8, 1], amr: ConsoleSession.passkeyAMR, at: now, expiresAt: now + 3600,
                event: Self.event(.consoleSignedIn, account: account.id))
            let session = try #require(try await store.consoleSessions.session(tokenHash: hash, now: now + 10))
            #expect(session.scopes == AdminScopes([.read]) && session.verifiedAt == now && session.isFresh(at: now + 10) && !session.isFresh(at: now + 301))
            #expect(try await store.consoleSessions.session(tokenHash: hash, now: now + 3600) == nil, "expired")
            #expect(try await store.consoleSessions.verify(tokenHash: hash, accountId: account.id, at: now + 400))
            #expect(try await !store.consoleSessions.verify(tokenHash: hash, accountId: "someone-else", at: now + 400))
            #expect(try await store.consoleSessions.session(tokenHash: hash, now: now + 401)?.isFresh(at: now + 401) == true)
            #expect(try await store.adminRoles.revoke(accountId: account.id, event: Self.event(.adminRevoked, account: account.id)))
            #expect(try await store.consoleSessions.session(tokenHash: hash, now: now + 402) == nil)
            #expect(try await !store.adminRoles.revoke(accountId: account.id, event: Self.event(.adminRevoked, account: account.id)))
            #expect(try await store.adminRoles.any() == false)
        }
    }
}
