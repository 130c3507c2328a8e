import Foundation
import LatchkeyDatabase
import SQLKit

/// The webhook outbox (`WebhookDelivery` reads it): deliveries claimed under a lease, then deleted when
/// delivered or given up, or put off to their next attempt.
struct WebhookOutboxStore: Sendable {
    /// The store whose connections and audit trail it shares.
    let store: Store

    var connections: DatabaseConnections { store.connections }
    var audit: AuditTrail { store.audit }

    /// A delivery claimed for this instance: the event, the endpoint's id, and which attempt this is.
    struct WebhookDue: Sendable {
        let event: AuditEvent?
        let auditId: Int64
        let endpoint: String
        let attempt: Int
    }

    /// Claims up to `limit` deliveries due by `now` for `endpoints`, each leased until `leaseUntil`.
    func claim(endpoints: [String], now: Date, leaseUntil: Date, limit: Int) async throws -> [WebhookDue] {
        let statement = connections.flavor == .postgres ? SQL.claimWebhooksOnPostgres : SQL.claimWebhooksOnSQLite
        let claim = StoreQuery(
            statement, .milliseconds(now), .milliseconds(leaseUntil), .integer(Int64(limit)), .text(endpoints.joined(separator: ",")))
        let claimed = try await connections.transaction { db in
            try await db.all(claim).map { row in
                (try row.decode(column: "audit_id", as: Int64.self), try row.decode(column: "endpoint", as: String.self),
                 try row.decode(column: "attempts", as: Int.self))
            }
        }
        var due: [WebhookDue] = []
        for (auditId, endpoint, attempt) in claimed.sorted(by: { $0.0 < $1.0 }) {
            let event = try await connections.withConnection { db in
                try await db.first(StoreQuery(SQL.auditEvent, .integer(auditId))).map(AuditEvent.init(row:))
            }
            due.append(WebhookDue(event: event, auditId: auditId, endpoint: endpoint, attempt: attempt))
        }
        return due
    }

    /// The delivery is done (delivered, or given up).
    func finish(auditId: Int64, endpoint: String) async throws {
        try await connections.withConnection { db in
            try await db.run(StoreQuery(SQL.deleteWebhook, .integer(auditId), .text(endpoint)))
        }
    }

    /// The delivery failed: try again at `next`, remembering why.
    func retry(auditId: Int64, endpoint: String, next: Date, error: String) async throws {
        try await connections.withConnection { db in
            try await db.run(StoreQuery(SQL.retryWebhook, .integer(auditId), .text(endpoint), .milliseconds(next), .text(String(error.prefix(200)))))
        }
    }

    /// Deliveries not yet made (delivered ones leave the outbox).
    func pendingCount() async throws -> Int {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.countWebhooks))?.decode(column: "n", as: Int.self) ?? 0
        }
    }
}

extension Store {
    /// The webhook outbox's deliveries.
    var webhookOutbox: WebhookOutboxStore { WebhookOutboxStore(store: self) }
}
