import Foundation
import LatchkeyDatabase
import SQLKit

/// A new device's request to be let in, as stored (`DeviceApprovalStore`): its code and secret as SHA-256
/// only, who made it (the user agent and address shown to the owner who decides), and how far it got.
struct DeviceRequestRecord: Sendable, Equatable {
    let id: String
    let codeHash: [UInt8]
    let secretHash: [UInt8]
    let createdAt: Date
    let expiresAt: Date
    let userAgent: String?
    let clientAddress: String?
    /// The username of the only account that may find, approve or deny it, when the device named one.
    var forUsername: String? = nil
    var accountId: String? = nil
    var approvedAt: Date? = nil
    var deniedAt: Date? = nil
    var sessionIssuedAt: Date? = nil
    var completedAt: Date? = nil

    init(row: any SQLRow) throws {
        id = try row.decode(column: "id", as: String.self)
        codeHash = Array(try row.decode(column: "code_hash", as: Data.self))
        secretHash = Array(try row.decode(column: "secret_hash", as: Data.self))
        createdAt = Timestamp.date(try row.decode(column: "created_at", as: Int64.self))
        expiresAt = Timestamp.date(try row.decode(column: "expires_at", as: Int64.self))
        userAgent = try row.decode(column: "user_agent", as: String?.self)
        clientAddress = try row.decode(column: "client_address", as: String?.self)
        accountId = try row.decode(column: "account_id", as: String?.self)
        forUsername = try row.decode(column: "for_username", as: String?.self)
        approvedAt = try row.decode(column: "approved_at", as: Int64?.self).map(Timestamp.date)
        deniedAt = try row.decode(column: "denied_at", as: Int64?.self).map(Timestamp.date)
        sessionIssuedAt = try row.decode(column: "session_issued_at", as: Int64?.self).map(Timestamp.date)
        completedAt = try row.decode(column: "completed_at", as: Int64?.self).map(Timestamp.date)
    }

    init(
        id: String, codeHash: [UInt8], secretHash: [UInt8], createdAt: Date, expiresAt: Date, userAgent: String?, clientAddress: String?,
        forUsername: String? = nil
    ) {
        self.forUsername = forUsername
        self.id = id
        self.codeHash = codeHash
        self.secretHash = secretHash
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.userAgent = userAgent
        self.clientAddress = clientAddress
    }
}
