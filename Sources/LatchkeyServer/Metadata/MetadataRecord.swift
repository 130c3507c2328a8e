import Foundation
import LatchkeyDatabase
import SQLKit
import WebAuthn

/// One authenticator model as stored from the FIDO metadata (`metadata_entries`): what registration
/// reads for the passkey's AAGUID — the roots its attestation must chain to, and its latest status.
struct MetadataRecord: Sendable, Equatable {
    let aaguid: [UInt8]
    /// The model's name as its vendor gave it.
    let description: String
    /// DER, each certificate as the BLOB gave it.
    let rootCertificates: [[UInt8]]
    /// The latest status report's status (`FIDO_CERTIFIED_L1`, `REVOKED` …) and its date; nil without reports.
    let status: AuthenticatorStatus?
    let statusDate: String?
    /// A `data:image/…` URL, at most `MetadataEntry.maximumIconSize` bytes.
    let icon: String?

    init(_ entry: MetadataEntry) {
        aaguid = entry.aaguid
        description = entry.description
        rootCertificates = entry.attestationRootCertificates
        status = entry.latestStatus?.status
        statusDate = entry.latestStatus?.effectiveDate
        icon = entry.icon
    }

    init(row: any SQLRow) throws {
        aaguid = Array(try row.decode(column: "aaguid", as: Data.self))
        description = try row.decode(column: "description", as: String.self)
        rootCertificates = Self.split(Array(try row.decode(column: "root_certificates", as: Data.self)))
        status = try row.decode(column: "status", as: String?.self).map(AuthenticatorStatus.init(rawValue:))
        statusDate = try row.decode(column: "status_date", as: String?.self)
        icon = try row.decode(column: "icon", as: String?.self)
    }

    /// The certificates one after another, as the column holds them.
    var joinedRootCertificates: [UInt8] { rootCertificates.flatMap { $0 } }

    /// DER certificates written one after another, apart again: each is a SEQUENCE whose header gives its
    /// length. What does not parse that way ends the list (the column is only ever written by `joined`).
    static func split(_ bytes: [UInt8]) -> [[UInt8]] {
        var certificates: [[UInt8]] = []
        var index = 0
        while index + 2 <= bytes.count, bytes[index] == 0x30 {
            var length = Int(bytes[index + 1])
            var header = 2
            if length & 0x80 != 0 {
                let octets = length & 0x7f
                guard (1...4).contains(octets), index + 2 + octets <= bytes.count else { break }
                length = bytes[(index + 2)..<(index + 2 + octets)].reduce(0) { $0 << 8 | Int($1) }
                header += octets
            }
            guard index + header + length <= bytes.count else { break }
            certificates.append(Array(bytes[index..<(index + header + length)]))
            index += header + length
        }
        return certificates
    }
}

/// The metadata BLOB last loaded (`metadata_blob`, one row).
struct MetadataBLOBRecord: Sendable, Equatable {
    /// The BLOB's `no`.
    let serial: Int
    /// `YYYY-MM-DD`: past it, the stored metadata is out of date.
    let nextUpdate: String
    let legalHeader: String
    /// FIDO2 entries stored.
    let entries: Int
    let loadedAt: Date

    init(row: any SQLRow) throws {
        serial = Int(try row.decode(column: "serial", as: Int64.self))
        nextUpdate = try row.decode(column: "next_update", as: String.self)
        legalHeader = try row.decode(column: "legal_header", as: String.self)
        entries = try row.decode(column: "entries", as: Int.self)
        loadedAt = Timestamp.date(try row.decode(column: "loaded_at", as: Int64.self))
    }
}
