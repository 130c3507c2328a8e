import Foundation
@testable import LatchkeyServer

// The store's changes without an audit event of the test's choosing: tests of the storage itself write
// the event a change would carry from a test origin, so their calls read as before the audit trail.

extension AuditOrigin {
    static let test = AuditOrigin(actor: "test")
}

extension Store {
    func updateAccount(id: String, displayName: String?, credo: String?, now: Date) async throws -> AccountRecord? {
        try await updateAccount(
            id: id, displayName: displayName, credo: credo, now: now,
            event: AuditOrigin.test.event(.accountUpdated, at: now, account: id, detail: .changed(displayName: displayName, credo: credo)))
    }

    func deleteAccount(id: String) async throws {
        try await deleteAccount(id: id, event: AuditOrigin.test.event(.accountDeleted, at: Date(), account: id))
    }

    func deleteCredential(id: [UInt8], accountId: String, keepingSession: [UInt8]) async throws -> DeleteCredentialOutcome {
        try await deleteCredential(
            id: id, accountId: accountId, keepingSession: keepingSession,
            event: AuditOrigin.test.event(.passkeyRemoved, at: Date(), account: accountId, credential: id))
    }
}

extension CeremonyStorage {
    func createAccount(_ account: AccountRecord, credential: CredentialRecord, challenge: UsedChallenge?) async throws {
        try await createAccount(
            account, credential: credential, challenge: challenge,
            events: [AuditOrigin.test.event(.accountCreated, at: account.createdAt, account: account.id)], session: nil)
    }
}
