import Foundation
import LatchkeyDatabase
import SQLKit

/// A recovery grant as stored (`recovery_grants`): whose, what for, until when, by whom, and where it is
/// in its one life — issued, exchanged for a restricted session, used (a passkey added), or revoked.
/// Only the SHA-256 of the code's secret part is kept.
struct RecoveryGrantRecord: Sendable, Equatable {
    let id: String
    let secretHash: [UInt8]
    let accountId: String
    /// What the grant does: `add_passkey`, the only purpose there is.
    let purpose: String
    let issuedAt: Date
    let expiresAt: Date
    /// `cli`, `admin:<key id>`.
    let issuedBy: String
    var exchangedAt: Date? = nil
    var usedAt: Date? = nil
    var revokedAt: Date? = nil
    var failedAttempts = 0

    /// Outstanding: neither used nor revoked, and not expired at `now`.
    func isOutstanding(at now: Date) -> Bool {
        usedAt == nil && revokedAt == nil && expiresAt > now
    }

    /// The grant's state in one word, for lists.
    func state(at now: Date) -> String {
        if usedAt != nil { return "used" }
        if revokedAt != nil { return "revoked" }
        if expiresAt <= now { return "expired" }
        return exchangedAt != nil ? "exchanged" : "issued"
    }
}

extension RecoveryGrantRecord {
    /// A `recovery_grants` row (`SQL.recoveryGrantColumns`).
    init(row: any SQLRow) throws {
        self.init(
            id: try row.decode(column: "id", as: String.self),
            secretHash: Array(try row.decode(column: "secret_hash", as: Data.self)),
            accountId: try row.decode(column: "account_id", as: String.self),
            purpose: try row.decode(column: "purpose", as: String.self),
            issuedAt: Timestamp.date(try row.decode(column: "issued_at", as: Int64.self)),
            expiresAt: Timestamp.date(try row.decode(column: "expires_at", as: Int64.self)),
            issuedBy: try row.decode(column: "issued_by", as: String.self),
            exchangedAt: try row.decode(column: "exchanged_at", as: Int64?.self).map(Timestamp.date),
            usedAt: try row.decode(column: "used_at", as: Int64?.self).map(Timestamp.date),
            revokedAt: try row.decode(column: "revoked_at", as: Int64?.self).map(Timestamp.date),
            failedAttempts: try row.decode(column: "failed_attempts", as: Int.self))
    }
}
