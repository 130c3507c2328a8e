import Foundation
import LatchkeyDatabase
import SQLKit

// The records as rows of the store's queries decode them. (Apart from `Records.swift`, which the request
// bodies' fuzz target compiles too, without SQLKit.)

extension AccountRecord {
    /// An `accounts` row.
    init(row: any SQLRow) throws {
        self.init(
            id: try row.decode(column: "id", as: String.self),
            userHandle: Array(try row.decode(column: "user_handle", as: Data.self)),
            displayName: try row.decode(column: "display_name", as: String.self),
            credo: try row.decode(column: "credo", as: String.self),
            createdAt: Timestamp.date(try row.decode(column: "created_at", as: Int64.self)),
            updatedAt: Timestamp.date(try row.decode(column: "updated_at", as: Int64.self)),
            disabledAt: try row.decode(column: "disabled_at", as: Int64?.self).map(Timestamp.date))
    }
}

extension CredentialRecord {
    /// A `credentials` row (`SQL.credentialColumns`).
    init(row: any SQLRow) throws {
        let transports = try row.decode(column: "transports", as: String.self)
        self.init(
            id: Array(try row.decode(column: "id", as: Data.self)),
            accountId: try row.decode(column: "account_id", as: String.self),
            publicKey: Array(try row.decode(column: "public_key", as: Data.self)),
            algorithm: try row.decode(column: "algorithm", as: Int.self),
            signCount: UInt32(clamping: try row.decode(column: "sign_count", as: Int64.self)),
            transports: transports.isEmpty ? [] : transports.split(separator: ",").map(String.init),
            aaguid: Array(try row.decode(column: "aaguid", as: Data.self)),
            attestationFormat: try row.decode(column: "attestation_format", as: String.self),
            backupEligible: try row.decode(column: "backup_eligible", as: Int.self) != 0,
            backupState: try row.decode(column: "backup_state", as: Int.self) != 0,
            uvInitialized: try row.decode(column: "uv_initialized", as: Int.self) != 0,
            name: try row.decode(column: "name", as: String.self),
            createdAt: Timestamp.date(try row.decode(column: "created_at", as: Int64.self)),
            lastUsedAt: try row.decode(column: "last_used_at", as: Int64?.self).map(Timestamp.date),
            attestationVerified: try row.decode(column: "attestation_verified", as: Int.self) != 0,
            backupStateChangedAt: try row.decode(column: "backup_state_changed_at", as: Int64?.self).map(Timestamp.date),
            createdOrigin: try row.decode(column: "created_origin", as: String?.self),
            discoverable: try row.decode(column: "discoverable", as: Int?.self).map { $0 != 0 },
            prfEnabled: try row.decode(column: "prf_enabled", as: Int?.self).map { $0 != 0 })
    }
}

extension SessionDetails {
    /// A row of `SQL.sessionDetails` or `SQL.sessionDetailsByPrefix`.
    init(row: any SQLRow) throws {
        self.init(
            tokenHash: Array(try row.decode(column: "token_hash", as: Data.self)),
            accountId: try row.decode(column: "account_id", as: String.self),
            createdAt: Timestamp.date(try row.decode(column: "created_at", as: Int64.self)),
            expiresAt: Timestamp.date(try row.decode(column: "expires_at", as: Int64.self)),
            userVerified: try row.decode(column: "user_verified", as: Int.self) != 0,
            backupEligible: try row.decode(column: "backup_eligible", as: Int?.self).map { $0 != 0 },
            method: SessionMethod(rawValue: try row.decode(column: "method", as: String.self)) ?? .recovery)
    }
}
