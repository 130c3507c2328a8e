import Foundation
import LatchkeyDatabase

/// The forward-auth check's read: a read on any connection, never the writer's transaction.
extension Store {
    func forwardAuthIdentity(tokenHash: [UInt8], now: Date) async throws -> ForwardAuthIdentity? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.forwardAuthIdentity, .blob(tokenHash), .milliseconds(now))).map(ForwardAuthIdentity.init(row:))
        }
    }
}
