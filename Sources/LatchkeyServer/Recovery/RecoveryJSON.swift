import Foundation

// What recovery answers: a grant as an operator sees it (never its code after issuing), the code once,
// and the exchange's restricted session.

/// A recovery grant in a list: its state, never its code or the code's hash.
struct RecoveryGrantJSON: NullKeepingBody, Equatable {
    let id: String
    let accountId: String
    let purpose: String
    /// `issued`, `exchanged`, `used`, `revoked` or `expired`.
    let state: String
    let issuedAt: Date
    let expiresAt: Date
    let issuedBy: String
    let exchangedAt: Date?
    let usedAt: Date?
    let revokedAt: Date?
    let failedAttempts: Int

    init(_ grant: RecoveryGrantRecord, now: Date) {
        id = grant.id
        accountId = grant.accountId
        purpose = grant.purpose
        state = grant.state(at: now)
        issuedAt = grant.issuedAt
        expiresAt = grant.expiresAt
        issuedBy = grant.issuedBy
        exchangedAt = grant.exchangedAt
        usedAt = grant.usedAt
        revokedAt = grant.revokedAt
        failedAttempts = grant.failedAttempts
    }
}

/// A new grant: the only time its code is shown, and the link that carries it.
struct RecoveryIssuedJSON: APIResponseBody {
    let grant: RecoveryGrantJSON
    let code: String
    let link: String
}

struct RecoveryAccountJSON: APIResponseBody {
    let id: String
    let displayName: String
}

/// `POST /api/recovery/exchange`: the restricted session (a bearer token only, never a cookie).
struct RecoveryExchangeJSON: APIResponseBody {
    let token: String
    let expiresAt: Date
    let account: RecoveryAccountJSON
}
