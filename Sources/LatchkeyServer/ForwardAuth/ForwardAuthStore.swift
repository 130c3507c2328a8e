import Foundation
import LatchkeyDatabase

/// The forward-auth check's read: a read on any connection, never the writer's transaction.
struct ForwardAuthStore: Sendable {
    /// The store whose connections and audit trail it shares.
    let store: Store

    var connections: DatabaseConnections { store.connections }
    var audit: AuditTrail { store.audit }

    func identity(tokenHash: [UInt8], now: Date) async throws -> ForwardAuthIdentity? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.forwardAuthIdentity, .blob(tokenHash), .milliseconds(now))).map(ForwardAuthIdentity.init(row:))
        }
    }
}

extension Store {
    /// The forward-auth check's read.
    var forwardAuth: ForwardAuthStore { ForwardAuthStore(store: self) }
}
