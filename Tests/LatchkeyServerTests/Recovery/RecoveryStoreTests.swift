import Foundation
import Testing
@testable import LatchkeyServer

/// The recovery grant's one exchange in the store, on every backend: the HTTP suite races exchanges on
/// SQLite (`RecoveryGrantTests`), whose writes are serialized anyway; on PostgreSQL the statement itself
/// must let one transaction through. An extension of `StoreTests` so that it shares its serialization
/// (one PostgreSQL database).
extension StoreTests {
    @Test("a recovery grant is exchanged once however many exchanges race for it: one session, one event", arguments: Backends.all)
    func recoveryExchangeRace(backend: String) async throws {
        try await Backends.with(backend) { store in
            let account = Self.account()
            try await store.ceremonies.createAccount(account, credential: Self.credential([0x52, 1], account: account.id))
            let at = Date()
            let code = RecoveryCode.generate()
            let grant = RecoveryGrantRecord(
                id: code.id, secretHash: code.secretHash, accountId: account.id, purpose: "add_passkey", issuedAt: at, expiresAt: at + 3600,
                issuedBy: "test")
            #expect(try await store.recovery.issue(grant) { _ in [Self.event(.recoveryIssued, account: account.id)] })
            let winners = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<12 {
                    group.addTask {
                        let token = SessionToken.generateRecovery()
                        let session = NewSession(
                            tokenHash: token.hash, accountId: account.id, credentialId: nil, createdAt: at, expiresAt: at + 900, userVerified: false)
                        return try await store.recovery.exchange(id: grant.id, session: session, event: Self.event(.recoveryExchanged, account: account.id))
                    }
                }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(winners.compactMap { $0 } == [account.id], "\(winners)")
            #expect(try await store.recovery.grant(id: grant.id)?.exchangedAt != nil)
            let exchanged = try await store.auditEvents(Store.AuditQuery(accountId: account.id, kind: .recoveryExchanged))
            #expect(exchanged.count == 1)
        }
    }
}
