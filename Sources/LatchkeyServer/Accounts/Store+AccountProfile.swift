import Foundation
import LatchkeyDatabase
import SQLKit

/// Reading and changing an account's profile (`AccountProfile`): the person sets their username, an
/// operator any of it. The changes of one request are one transaction with their one audit event.
extension Store {
    enum ProfileChange: Sendable {
        /// nil removes it. Already lower case and checked (`InputRules`).
        case username(String?)
        /// A new address (nil removes it): `verified` nil keeps the verification when the address stays
        /// the same and clears it for another one (nobody verified that one).
        case email(String?, verified: Bool?)
        /// Marks the stored address verified or not (an account without one stays unverified).
        case emailVerified(Bool)
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

    /// Applies `changes` in one transaction with `event`; false when there is no such account. A username
    /// another account has, or had, throws `Failure.duplicate` (checked first; the unique index backs it
    /// up): a name once used is never given to another account, since apps that key their users on
    /// `preferred_username` would take the newcomer for the old owner (review 4, S4-5).
    func changeProfile(accountId: String, _ changes: [ProfileChange], at: Date, event: AuditEvent) async throws -> Bool {
        try await connections.transaction { db in
            guard try await applyProfile(changes, accountId: accountId, at: at, on: db) else { return false }
            try await audit.append([event], on: db)
            return true
        }
    }

    /// `changes` inside the caller's transaction (the person's `PATCH /api/account` changes a display
    /// name and a username at once); false when there is no such account.
    func applyProfile(_ changes: [ProfileChange], accountId: String, at: Date, on db: any SQLDatabase) async throws -> Bool {
        for case .username(let name?) in changes {
            if let owner = try await db.first(StoreQuery(SQL.accountIdByUsername, .text(name)))?.decode(column: "id", as: String.self),
               owner != accountId {
                throw Failure.duplicate
            }
            if let first = try await db.first(StoreQuery(SQL.usernameOwner, .text(name)))?.decode(column: "account_id", as: String.self),
               first != accountId {
                throw Failure.duplicate
            }
            try await db.run(StoreQuery(SQL.noteUsername, .text(name), .text(accountId), .milliseconds(at)))
        }
        for change in changes {
            let query: StoreQuery
            switch change {
            case .username(let name): query = StoreQuery(SQL.setAccountUsername, .text(accountId), .text(name), .milliseconds(at))
            case .email(let email, let verified?):
                query = StoreQuery(SQL.setAccountEmail, .text(accountId), .text(email), .integer(email != nil && verified), .milliseconds(at))
            case .email(let email, nil): query = StoreQuery(SQL.setAccountEmailKeepingVerification, .text(accountId), .text(email), .milliseconds(at))
            case .emailVerified(let verified): query = StoreQuery(SQL.setAccountEmailVerified, .text(accountId), .integer(verified), .milliseconds(at))
            case .groups(let groups):
                query = StoreQuery(SQL.setAccountGroups, .text(accountId), .text(SpaceSeparated.stored(groups)), .milliseconds(at))
            }
            guard try await db.first(query) != nil else { return false }
        }
        return true
    }

    /// One change (`changeProfile(accountId:_:at:event:)` with one element).
    func changeProfile(accountId: String, _ change: ProfileChange, at: Date, event: AuditEvent) async throws -> Bool {
        try await changeProfile(accountId: accountId, [change], at: at, event: event)
    }
}
