import Foundation
import LatchkeyDatabase
import SQLKit

/// Finding an account by its WebAuthn user handle (`accounts.user_handle` is unique, so indexed).
///
/// Latchkey's own login always has the credential id; Hanko's iOS app sends an assertion with an empty
/// `rawId` and only the `userHandle`, so its compatibility endpoint starts from the account (`HankoController`).
extension Store {
    static let accountIdByUserHandle = StoreStatement("SELECT id FROM accounts WHERE user_handle = $1")

    func accountId(userHandle: [UInt8]) async throws -> String? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(Self.accountIdByUserHandle, .blob(userHandle))).map { try $0.decode(column: "id", as: String.self) }
        }
    }
}
