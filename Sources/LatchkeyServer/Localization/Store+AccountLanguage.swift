import Foundation
import LatchkeyDatabase
import SQLKit

/// The account's language (migration 24): what its mails are written in.
extension Store {
    /// Sets it; false when there is no such account. Not audited: a preference of words, no access.
    func setLanguage(_ language: String, accountId: String) async throws -> Bool {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.setAccountLanguage, .text(accountId), .text(language))) != nil
        }
    }

    /// The language set for the account, nil when none is (or there is no such account).
    func language(accountId: String) async throws -> String? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.accountLanguage, .text(accountId)))?.decode(column: "language", as: String?.self)
        }
    }
}
