import Foundation
import LatchkeyDatabase
import SQLKit

/// What other apps may learn about a person through OpenID Connect (the `profile`, `email` and `groups`
/// scopes), beside the display name: a username unique on this server (stored lower case), an email
/// address and whether it was verified, and the groups an operator put the account in.
struct AccountProfile: Sendable, Equatable {
    let accountId: String
    var displayName: String
    var username: String?
    var email: String?
    var emailVerified: Bool
    var groups: [String]
    var updatedAt: Date
    var disabled: Bool
}

extension AccountProfile {
    /// A row of `SQL.accountProfile`.
    init(row: any SQLRow) throws {
        self.init(
            accountId: try row.decode(column: "id", as: String.self),
            displayName: try row.decode(column: "display_name", as: String.self),
            username: try row.decode(column: "username", as: String?.self),
            email: try row.decode(column: "email", as: String?.self),
            emailVerified: try row.decode(column: "email_verified", as: Int.self) != 0,
            groups: SpaceSeparated.list(try row.decode(column: "group_names", as: String.self)),
            updatedAt: Timestamp.date(try row.decode(column: "updated_at", as: Int64.self)),
            disabled: try row.decode(column: "disabled_at", as: Int64?.self) != nil)
    }
}
