import Foundation
import LatchkeyDatabase
import SQLKit

/// Who a session cookie belongs to, as the forward-auth check tells the app behind the proxy: read with
/// the session in one query (`SQL.forwardAuthIdentity`) and kept a few seconds by `ForwardAuthCache`.
struct ForwardAuthIdentity: Sendable, Equatable {
    let accountId: String
    let username: String?
    let displayName: String
    let email: String?
    let groups: [String]
    /// When the passkey that opened the session was used (the session's creation): a rule's max-age
    /// is measured from it.
    let authenticatedAt: Date
    /// When the session ends: the cache never keeps it longer.
    let expiresAt: Date

    /// What `Remote-User` says: the username, or the account id for an account without one.
    var user: String { username ?? accountId }
}

extension ForwardAuthIdentity {
    /// A row of `SQL.forwardAuthIdentity`.
    init(row: any SQLRow) throws {
        self.init(
            accountId: try row.decode(column: "id", as: String.self),
            username: try row.decode(column: "username", as: String?.self),
            displayName: try row.decode(column: "display_name", as: String.self),
            email: try row.decode(column: "email", as: String?.self),
            groups: OIDCClientRecord.list(try row.decode(column: "group_names", as: String.self)),
            authenticatedAt: Timestamp.date(try row.decode(column: "created_at", as: Int64.self)),
            expiresAt: Timestamp.date(try row.decode(column: "expires_at", as: Int64.self)))
    }
}
