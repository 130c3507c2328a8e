import Foundation
import SQLKit

/// Reading and changing an account's profile (`AccountProfile`): the person sets their username, an
/// operator their email and groups. Each change is audited in its transaction.
extension Store {
    enum ProfileChange: Sendable {
        /// nil removes it. Already lower case and checked (`InputRules`).
        case username(String?)
        case email(String?, verified: Bool)
        case groups([String])
    }

    func accountProfile(id: String) async throws -> AccountProfile? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.accountProfile, .text(id))).map(AccountProfile.init(row:))
        }
    }

    func accountId(username: String) async throws -> String? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.accountIdByUsername, .text(username)))?.decode(column: "id", as: String.self)
        }
    }

    /// Applies `change`; false when there is no such account. A username another account has throws
    /// `Failure.duplicate`.
    func changeProfile(accountId: String, _ change: ProfileChange, at: Date, event: AuditEvent) async throws -> Bool {
        let query: StoreQuery
        switch change {
        case .username(let name): query = StoreQuery(SQL.setAccountUsername, .text(accountId), .text(name), .milliseconds(at))
        case .email(let email, let verified):
            query = StoreQuery(SQL.setAccountEmail, .text(accountId), .text(email), .integer(verified), .milliseconds(at))
        case .groups(let groups): query = StoreQuery(SQL.setAccountGroups, .text(accountId), .text(OIDCClientRecord.stored(groups)), .milliseconds(at))
        }
        return try await connections.transaction { db in
            if case .username(let name?) = change,
               let owner = try await db.first(StoreQuery(SQL.accountIdByUsername, .text(name)))?.decode(column: "id", as: String.self),
               owner != accountId {
                throw Failure.duplicate
            }
            guard try await db.first(query) != nil else { return false }
            try await audit.append([event], on: db)
            return true
        }
    }
}
