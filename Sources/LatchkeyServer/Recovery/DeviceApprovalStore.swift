import Foundation
import LatchkeyDatabase
import SQLKit

/// A new device asking to be let in (`DeviceApprovalService`): made anonymously (bounded in number and
/// life), approved or denied by the account's owner, then turned once into a restricted session.
struct DeviceApprovalStore: Sendable {
    /// The store whose connections and audit trail it shares.
    let store: Store

    var connections: DatabaseConnections { store.connections }
    var audit: AuditTrail { store.audit }

    /// Stores a new request of `requester` (an address, or an IPv6 /64: `RateLimitClient.requesterKey`),
    /// first deleting the requester's oldest undecided request when it holds `perRequester` live ones.
    /// False when `liveLimit` are live in all, or a live one has its code.
    func insert(_ request: DeviceRequestRecord, requester: String, perRequester: Int, liveLimit: Int) async throws -> Bool {
        try await connections.transaction { db in
            try await db.run(StoreQuery(
                SQL.evictOldestDeviceRequest, .text(requester), .milliseconds(request.createdAt), .integer(Int64(perRequester))))
            return try await db.first(StoreQuery(
                SQL.insertDeviceRequest, .text(request.id), .blob(request.codeHash), .blob(request.secretHash), .milliseconds(request.createdAt),
                .milliseconds(request.expiresAt), .text(request.userAgent), .text(request.clientAddress), .integer(Int64(liveLimit)),
                .text(requester), .integer(Int64(perRequester)), .text(request.forUsername))) != nil
        }
    }

    func request(id: String) async throws -> DeviceRequestRecord? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.deviceRequest, .text(id))).map(DeviceRequestRecord.init(row:))
        }
    }

    func live(codeHash: [UInt8], now: Date) async throws -> DeviceRequestRecord? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.liveDeviceRequestByCode, .blob(codeHash), .milliseconds(now))).map(DeviceRequestRecord.init(row:))
        }
    }

    /// Approves request `id` for `accountId` with a fresh passkey assertion, in one transaction: the
    /// confirmation's challenge is marked used, the assertion's passkey must be the account's and pass
    /// `decide`, its counter moves, the request is approved, and `event` is written.
    func approve(
        id: String, accountId: String, challenge: UsedChallenge, credentialId: [UInt8], at: Date, event: AuditEvent,
        decide: @escaping @Sendable (CredentialRecord, AccountRecord) -> LoginVerdict
    ) async throws -> ConfirmationOutcome {
        do {
            return try await connections.transaction { db in
                guard try await CeremonySteps.useChallenge(challenge, on: db) else { throw Stop(outcome: .unknownChallenge) }
                guard let (credential, account) = try await CeremonySteps.credentialWithAccount(id: credentialId, on: db), account.id == accountId
                else { throw Stop(outcome: .unknownCredential) }
                let verdict = decide(credential, account)
                guard case .accept(let writes) = verdict else { throw Stop(outcome: .rejected(ConfirmationOutcome.Refusal(verdict: verdict))) }
                let moved = try await db.changedRows(StoreQuery(
                    SQL.recordLogin, .integer(Int64(writes.signCount)), .integer(writes.backupState), .integer(writes.userVerified),
                    .milliseconds(at), .blob(credential.id), .integer(Int64(credential.signCount))))
                guard moved == 1 else { throw Stop(outcome: .unknownChallenge) }
                guard try await db.first(StoreQuery(SQL.approveDeviceRequest, .text(id), .text(accountId), .milliseconds(at))) != nil else {
                    throw Stop(outcome: .requestGone)
                }
                try await audit.append([event], on: db)
                return .approved
            }
        } catch let stop as Stop {
            return stop.outcome
        }
    }

    private struct Stop: Error { let outcome: ConfirmationOutcome }

    /// Denies a live, undecided request; false when there is none.
    func deny(id: String, at: Date, event: AuditEvent) async throws -> Bool {
        try await connections.transaction { db in
            guard try await db.first(StoreQuery(SQL.denyDeviceRequest, .text(id), .milliseconds(at))) != nil else { return false }
            try await audit.append([event], on: db)
            return true
        }
    }

    /// The approved request's one restricted session; nil when it was issued already or the request is gone.
    func issueSession(id: String, session: NewSession) async throws -> String? {
        try await connections.transaction { db in
            guard let row = try await db.first(StoreQuery(SQL.issueDeviceSession, .text(id), .milliseconds(session.createdAt))) else { return nil }
            let accountId = try row.decode(column: "account_id", as: String.self)
            try await db.run(StoreQuery(
                SQL.insertDeviceSession, .blob(session.tokenHash), .text(accountId), .milliseconds(session.createdAt),
                .milliseconds(session.expiresAt), .text(id)))
            return accountId
        }
    }

    /// Requests whose life (and their session's) is over.
    func purge(before: Date) async throws {
        try await connections.withConnection { db in
            _ = try await db.changedRows(StoreQuery(SQL.purgeDeviceRequests, .milliseconds(before)))
        }
    }
}

extension Store {
    /// New devices' requests to be let in: made, decided, turned into a session, purged.
    var deviceRequests: DeviceApprovalStore { DeviceApprovalStore(store: self) }
}
