import Foundation
import LatchkeyDatabase
import SQLKit

/// An invitation as stored (`invitations`): the account it makes — the username, email and groups it
/// gets — how many accounts it may make, until when, by whom, and where it is in its life. Only the
/// SHA-256 of the code's secret part is kept (the code is a `RecoveryCode`: its first group is `id`).
struct InvitationRecord: Sendable, Equatable {
    let id: String
    let secretHash: [UInt8]
    /// The account an operator made with it (`latchkey admin accounts create`); nil: each use makes one.
    let accountId: String?
    let username: String?
    let email: String?
    let groups: [String]
    let maxUses: Int
    var uses = 0
    let createdAt: Date
    let expiresAt: Date
    /// `cli`, `admin:<key id>`.
    let createdBy: String
    /// When the link was mailed to `email`: the person's use of it then proves the mailbox.
    var mailedAt: Date? = nil
    var revokedAt: Date? = nil
    var failedAttempts = 0
    /// Who asked for it by mail (`--signup-domain`: an address, or an IPv6 /64); nil for an operator's.
    var requester: String? = nil

    /// Live: not revoked, not expired at `now`, and with a use left.
    func isOutstanding(at now: Date) -> Bool {
        revokedAt == nil && expiresAt > now && uses < maxUses
    }

    /// What an account made with it gets: its username, email — verified when the link was mailed to it,
    /// since using the link proves the mailbox — and groups.
    var profile: [Store.ProfileChange] {
        var changes: [Store.ProfileChange] = []
        if let username { changes.append(.username(username)) }
        if let email { changes.append(.email(email, verified: mailedAt != nil)) }
        if !groups.isEmpty { changes.append(.groups(groups)) }
        return changes
    }

    /// Its state in one word, for lists.
    func state(at now: Date) -> String {
        if revokedAt != nil { return "revoked" }
        if uses >= maxUses { return "used" }
        if expiresAt <= now { return "expired" }
        return "live"
    }
}

extension InvitationRecord {
    /// An `invitations` row (`InvitationSQL.columns`).
    init(row: any SQLRow) throws {
        self.init(
            id: try row.decode(column: "id", as: String.self),
            secretHash: Array(try row.decode(column: "secret_hash", as: Data.self)),
            accountId: try row.decode(column: "account_id", as: String?.self),
            username: try row.decode(column: "username", as: String?.self),
            email: try row.decode(column: "email", as: String?.self),
            groups: OIDCClientRecord.list(try row.decode(column: "group_names", as: String.self)),
            maxUses: try row.decode(column: "max_uses", as: Int.self),
            uses: try row.decode(column: "uses", as: Int.self),
            createdAt: Timestamp.date(try row.decode(column: "created_at", as: Int64.self)),
            expiresAt: Timestamp.date(try row.decode(column: "expires_at", as: Int64.self)),
            createdBy: try row.decode(column: "created_by", as: String.self),
            mailedAt: try row.decode(column: "mailed_at", as: Int64?.self).map(Timestamp.date),
            revokedAt: try row.decode(column: "revoked_at", as: Int64?.self).map(Timestamp.date),
            failedAttempts: try row.decode(column: "failed_attempts", as: Int.self),
            requester: try row.decode(column: "requester", as: String?.self))
    }
}
