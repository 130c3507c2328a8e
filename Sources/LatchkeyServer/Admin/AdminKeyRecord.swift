import Foundation
import LatchkeyDatabase
import SQLKit

/// An admin API key as stored (`admin_keys`): only the SHA-256 of its secret, so that a copy of the
/// database opens nothing. The id is the key's visible prefix, which an operator reads to tell keys apart.
struct AdminKeyRecord: Sendable, Equatable {
    /// What a key may do. `write` and `recovery` can also read; neither includes the other.
    enum Scope: String, Sendable, CaseIterable {
        /// Find accounts, read them, their passkeys, sessions and audit trail.
        case read
        /// Also change them: disable, enable, delete, remove passkeys, end sessions.
        case write
        /// Also issue and revoke recovery grants (read included, to find the account).
        case recovery

        func allows(_ needed: Scope) -> Bool {
            needed == .read || needed == self
        }
    }

    let id: String
    let secretHash: [UInt8]
    let scope: Scope
    let name: String
    let createdAt: Date
    /// `cli`, or the admin key that made it.
    let createdBy: String
    var lastUsedAt: Date? = nil
    var revokedAt: Date? = nil

    /// An `admin_keys` row (`SQL.adminKeyColumns`).
    init(row: any SQLRow) throws {
        let scope = try row.decode(column: "scope", as: String.self)
        guard let known = Scope(rawValue: scope) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "unknown admin key scope \(scope)"))
        }
        self.init(
            id: try row.decode(column: "id", as: String.self), secretHash: Array(try row.decode(column: "secret_hash", as: Data.self)),
            scope: known, name: try row.decode(column: "name", as: String.self),
            createdAt: Timestamp.date(try row.decode(column: "created_at", as: Int64.self)),
            createdBy: try row.decode(column: "created_by", as: String.self),
            lastUsedAt: try row.decode(column: "last_used_at", as: Int64?.self).map(Timestamp.date),
            revokedAt: try row.decode(column: "revoked_at", as: Int64?.self).map(Timestamp.date))
    }

    init(id: String, secretHash: [UInt8], scope: Scope, name: String, createdAt: Date, createdBy: String, lastUsedAt: Date? = nil, revokedAt: Date? = nil) {
        self.id = id
        self.secretHash = secretHash
        self.scope = scope
        self.name = name
        self.createdAt = createdAt
        self.createdBy = createdBy
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
    }
}
