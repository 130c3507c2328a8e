import Foundation
import LatchkeyDatabase
import SQLKit

/// A device authorization (RFC 8628 §3.2) as stored (`oidc_device_codes`): the device code and the user
/// code as SHA-256 only, the client and scopes it is for, who asked (so that one requester holds a few),
/// how often the client may poll, and — once the person decided on the verification page — their account
/// and, when they approved, the grant the tokens come from.
struct OIDCDeviceRecord: Sendable, Equatable {
    let deviceHash: [UInt8]
    let userHash: [UInt8]
    let clientId: String
    let scopes: [String]
    let requester: String
    let createdAt: Date
    let expiresAt: Date
    /// Seconds between two polls; `slow_down` adds 5 (RFC 8628 §3.5).
    var interval: Int
    var polledAt: Date? = nil
    var accountId: String? = nil
    var grantId: String? = nil
    var decidedAt: Date? = nil
    var approved: Bool? = nil
}

extension OIDCDeviceRecord {
    /// An `oidc_device_codes` row (`SQL.oidcDeviceColumns`).
    init(row: any SQLRow) throws {
        self.init(
            deviceHash: Array(try row.decode(column: "device_hash", as: Data.self)),
            userHash: Array(try row.decode(column: "user_hash", as: Data.self)),
            clientId: try row.decode(column: "client_id", as: String.self),
            scopes: OIDCClientRecord.list(try row.decode(column: "scope", as: String.self)),
            requester: try row.decode(column: "requester", as: String.self),
            createdAt: Timestamp.date(try row.decode(column: "created_at", as: Int64.self)),
            expiresAt: Timestamp.date(try row.decode(column: "expires_at", as: Int64.self)),
            interval: try row.decode(column: "interval_seconds", as: Int.self),
            polledAt: try row.decode(column: "polled_at", as: Int64?.self).map(Timestamp.date),
            accountId: try row.decode(column: "account_id", as: String?.self),
            grantId: try row.decode(column: "grant_id", as: String?.self),
            decidedAt: try row.decode(column: "decided_at", as: Int64?.self).map(Timestamp.date),
            approved: try row.decode(column: "approved", as: Int?.self).map { $0 != 0 })
    }
}
