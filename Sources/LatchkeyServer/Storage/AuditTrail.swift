import Foundation
import LatchkeyDatabase
import SQLKit

/// Appends events to the audit trail inside the caller's transaction — the one that makes the change
/// they record — and queues each for every webhook endpoint in the same commit (the outbox), so that an
/// event is delivered exactly when its change happened.
struct AuditTrail: Sendable {
    /// The endpoints behind one reference: an audit trail is then one word, and a value that holds it and the
    /// connections (`Store.ceremonies`, made per use) fits an existential's inline buffer, allocating nothing.
    private final class Endpoints: Sendable {
        let ids: [String]
        let list: String
        init(_ ids: [String]) { self.ids = ids; list = ids.joined(separator: ",") }
    }
    private let endpoints: Endpoints

    /// The ids of the configured webhook endpoints (`WebhookEndpoint.id`); empty without webhooks, and
    /// then an event costs one insert.
    var webhookEndpoints: [String] { endpoints.ids }
    /// The same, comma-separated, as PostgreSQL's login statement takes them (made once, not per login).
    var webhookEndpointList: String { endpoints.list }

    init(webhookEndpoints: [String] = []) {
        endpoints = Endpoints(webhookEndpoints)
    }

    func append(_ events: [AuditEvent], on db: any SQLDatabase) async throws {
        for event in events {
            if let limit = event.kind.routinePerHour, event.accountId != nil {
                _ = try await appendCapped(event, limit: limit, window: 3600, on: db)
            } else if webhookEndpoints.isEmpty {
                _ = try await db.changedRows(Self.insert(event))
            } else if let row = try await db.first(Self.insert(event)) {
                try await queue(id: try row.decode(column: "id", as: Int64.self), at: event.at, on: db)
            }
        }
    }

    /// Appends `event` unless its account already has `limit` events of its kind within `window` (among
    /// its last `lookback`): the refused logins an anonymous caller can cause. True when it was written.
    func appendCapped(_ event: AuditEvent, limit: Int, window: TimeInterval, lookback: Int = 200, on db: any SQLDatabase) async throws -> Bool {
        let values = Self.values(event) + [.integer(Int64(lookback)), .milliseconds(event.at - window), .integer(Int64(limit))]
        let query = StoreQuery(SQL.insertAuditEventCapped, values: values)
        if webhookEndpoints.isEmpty { return try await db.changedRows(query) == 1 }
        guard let row = try await db.first(query) else { return false }
        try await queue(id: try row.decode(column: "id", as: Int64.self), at: event.at, on: db)
        return true
    }

    private func queue(id: Int64, at: Date, on db: any SQLDatabase) async throws {
        for endpoint in webhookEndpoints {
            try await db.run(StoreQuery(SQL.queueWebhook, .integer(id), .text(endpoint), .milliseconds(at)))
        }
    }

    static func insert(_ event: AuditEvent) -> StoreQuery {
        StoreQuery(SQL.insertAuditEvent, values: values(event))
    }

    /// The nine columns of an event, in `SQL.insertAuditEvent`'s order.
    static func values(_ event: AuditEvent) -> [StoreValue] {
        [
            .milliseconds(event.at), .text(event.kind.rawValue), .text(event.accountId), .blob(event.credentialId),
            .text(event.origin.actor), .text(event.origin.clientAddress), .text(event.origin.userAgent),
            .text(event.origin.requestId), .text(event.detail),
        ]
    }
}
