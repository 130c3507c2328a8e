import Foundation
import LatchkeyDatabase
import SQLKit

/// Reading the audit trail, the writes that are events of their own, and its retention.
extension Store {
    /// Which events to read: newest first, before a row number (the previous page's last), optionally of
    /// one account, one kind, since a time.
    struct AuditQuery: Sendable, Equatable {
        var accountId: String? = nil
        var kind: AuditEvent.Kind? = nil
        var since: Date? = nil
        /// Only rows numbered below this (paging: the last id of the page before).
        var before: Int64? = nil
        var limit: Int = 50
    }

    func auditEvents(_ query: AuditQuery) async throws -> [AuditEvent] {
        var values: [StoreValue] = [
            .integer(query.before ?? .max), .integer(query.since.map(Timestamp.milliseconds) ?? .min),
            .text(query.kind?.rawValue ?? ""), .integer(Int64(query.limit)),
        ]
        let statement: StoreStatement
        if let accountId = query.accountId {
            statement = SQL.accountAuditEvents
            values.append(.text(accountId))
        } else {
            statement = SQL.auditEvents
        }
        let query = StoreQuery(statement, values: values)
        return try await connections.withConnection { db in
            try await db.all(query).map(AuditEvent.init(row:))
        }
    }

    /// Writes one event on its own (a change that is only an event: an access token issued).
    func record(_ event: AuditEvent) async throws {
        try await connections.transaction { db in try await audit.append([event], on: db) }
    }

    /// How many refused logins of one account the trail keeps per hour: the refusals an anonymous caller
    /// can make the server write, with any passkey id it has seen. Beyond it they are only counted
    /// (`latchkey_ceremony_failures_total`) and logged.
    static let refusedLoginsPerHour = 20

    /// Writes a refused login, within `refusedLoginsPerHour` for its account. True when it was written.
    @discardableResult
    func recordRefusedLogin(_ event: AuditEvent) async throws -> Bool {
        try await connections.transaction { db in
            try await audit.appendCapped(event, limit: Self.refusedLoginsPerHour, window: 3600, on: db)
        }
    }

    /// Deletes events older than `before`, in batches (each its own transaction, so that the purge never
    /// holds SQLite's write lock long). Returns how many went.
    @discardableResult
    func purgeAuditEvents(before: Date, batch: Int = 5000) async throws -> Int {
        var total = 0
        while true {
            let deleted = try await connections.transaction { db in
                try await db.changedRows(StoreQuery(SQL.purgeAuditEvents, .milliseconds(before), .integer(Int64(batch))))
            }
            total += deleted
            if deleted < batch { return total }
        }
    }
}

extension AuditEvent {
    /// An `audit_events` row (`SQL.auditColumns`).
    init(row: any SQLRow) throws {
        let kind = try row.decode(column: "event", as: String.self)
        guard let known = Kind(rawValue: kind) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "unknown audit event \(kind)"))
        }
        self.init(
            id: try row.decode(column: "id", as: Int64.self),
            at: Timestamp.date(try row.decode(column: "at", as: Int64.self)),
            kind: known,
            accountId: try row.decode(column: "account_id", as: String?.self),
            credentialId: try row.decode(column: "credential_id", as: Data?.self).map { Array($0) },
            origin: AuditOrigin(
                actor: try row.decode(column: "actor", as: String.self),
                clientAddress: try row.decode(column: "client_address", as: String?.self),
                userAgent: try row.decode(column: "user_agent", as: String?.self),
                requestId: try row.decode(column: "request_id", as: String?.self)),
            detail: try row.decode(column: "detail", as: String.self))
    }
}
