import Foundation
import Testing
@testable import LatchkeyServer

/// Email for recovery in the store, on every database: an address is stored unverified with one
/// confirmation token (a new one replaces the old), confirmed once by its own account while it is still the
/// account's; the mail log holds the per-address and per-account limits; accounts are found by a verified
/// address whatever its case; the purge forgets expired tokens and old log rows. Part of the storage suite
/// (one test at a time: they share one PostgreSQL database).
extension StoreTests {
  @Suite struct Email {
    static let at = Date(timeIntervalSince1970: 1_800_000_000)
    static let limits = EmailStore.MailLimits(perAddress: 3, perAccount: 5, window: 3600)

    static func address(_ text: String) throws -> EmailAddress { try EmailAddress.parse(text).get() }

    static func seed(_ store: Store) async throws -> String {
        let account = StoreTests.account()
        try await store.ceremonies.createAccount(account, credential: StoreTests.credential(Array(account.id.utf8), account: account.id))
        return account.id
    }

    static func token(_ secret: String, _ account: String, _ email: String, at date: Date = at) throws -> EmailStore.NewEmailToken {
        EmailStore.NewEmailToken(
            hash: SecretDigest.of(secret), accountId: account, email: try address(email), createdAt: date, expiresAt: date + 86400)
    }

    static func event(_ account: String, _ kind: AuditEvent.Kind = .accountUpdated) -> AuditEvent {
        AuditOrigin.test.event(kind, at: at, account: account)
    }

    static func verify(_ store: Store, _ secret: String, _ account: String, at date: Date = at) async throws -> String? {
        try await store.emails.verify(tokenHash: SecretDigest.of(secret), accountId: account, at: date, event: event(account, .emailVerified))
    }

    @Test("an address is confirmed once, by its own account, with the newest token, while it is still the account's", arguments: Backends.all)
    func confirmation(backend: String) async throws {
        try await Backends.with(backend) { store in
            let ada = try await Self.seed(store), bob = try await Self.seed(store)
            #expect(try await store.emails.set(try Self.token("t1", ada, "ada@example.com"), limits: Self.limits, event: Self.event(ada)) == .pending(mail: true))
            #expect(try await store.emails.set(try Self.token("t2", ada, "ada@example.com"), limits: Self.limits, event: Self.event(ada)) == .pending(mail: true))
            #expect(try await Self.verify(store, "t1", ada) == nil, "replaced by the newer token")
            #expect(try await Self.verify(store, "t2", bob) == nil, "another account's")
            #expect(try await Self.verify(store, "t2", ada, at: Self.at + 86400) == nil, "expired")
            #expect(try await store.emails.accountsWithVerified(try Self.address("ada@example.com"), limit: 5).isEmpty)
            #expect(try await Self.verify(store, "t2", ada) == "ada@example.com")
            #expect(try await Self.verify(store, "t2", ada) == nil, "used")
            let profile = try #require(try await store.accountProfile(id: ada))
            #expect(profile.email == "ada@example.com" && profile.emailVerified)
            #expect(try await store.emails.set(try Self.token("t3", ada, "ada@example.com"), limits: Self.limits, event: Self.event(ada)) == .alreadyVerified)

            // Found by the verified address whatever the case it was stored in; not once disabled or removed.
            #expect(try await store.emails.accountsWithVerified(try Self.address("ADA@example.com"), limit: 5).map(\.id) == [ada])

            // A token for an address the account no longer has changes nothing, and is not used up.
            #expect(try await store.emails.set(try Self.token("t4", ada, "ada2@example.com"), limits: Self.limits, event: Self.event(ada)) == .pending(mail: true))
            #expect(try await store.changeProfile(
                accountId: ada, .email("ada3@example.com", verified: false), at: Self.at, event: Self.event(ada)))
            #expect(try await Self.verify(store, "t4", ada) == nil)
            #expect(try await store.accountProfile(id: ada)?.emailVerified == false)

            #expect(try await store.emails.remove(accountId: ada, at: Self.at, event: Self.event(ada)))
            #expect(try await store.emails.remove(accountId: ada, at: Self.at, event: Self.event(ada)) == false)
            #expect(try await store.accountProfile(id: ada)?.email == nil)
        }
    }

    @Test("the mail log holds 3 mails an address and 5 an account in the window", arguments: Backends.all)
    func limits(backend: String) async throws {
        try await Backends.with(backend) { store in
            let ada = try await Self.seed(store), bob = try await Self.seed(store)
            let shared = try Self.address("shared@example.com")
            for _ in 0..<3 { #expect(try await store.emails.admit(to: shared, accountId: ada, purpose: "recovery", at: Self.at, limits: Self.limits)) }
            #expect(try await store.emails.admit(to: shared, accountId: bob, purpose: "recovery", at: Self.at, limits: Self.limits) == false, "the address's share")
            for index in 0..<2 {
                #expect(try await store.emails.admit(to: try Self.address("a\(index)@example.com"), accountId: ada, purpose: "recovery", at: Self.at, limits: Self.limits))
            }
            #expect(try await store.emails.admit(to: try Self.address("a9@example.com"), accountId: ada, purpose: "recovery", at: Self.at, limits: Self.limits) == false,
                    "the account's share")
            #expect(try await store.emails.set(try Self.token("t", ada, "new@example.com"), limits: Self.limits, event: Self.event(ada)) == .accountLimited)
            #expect(try await store.accountProfile(id: ada)?.email == nil, "nothing changed")
            // The address's share spent: the address is stored, its mail does not go.
            #expect(try await store.emails.set(try Self.token("u", bob, "shared@example.com"), limits: Self.limits, event: Self.event(bob)) == .pending(mail: false))
            // An hour later both have room again; a day later the purge has forgotten the log and the tokens.
            let later = Self.at + 3601
            #expect(try await store.emails.admit(to: shared, accountId: ada, purpose: "recovery", at: later, limits: Self.limits))
            try await store.emails.purge(tokensExpiredBefore: Self.at + 86401, loggedBefore: later + 1)
            #expect(try await Self.verify(store, "u", bob, at: Self.at) == nil, "purged")
            for _ in 0..<3 { #expect(try await store.emails.admit(to: shared, accountId: bob, purpose: "recovery", at: later, limits: Self.limits)) }
        }
    }
  }
}
