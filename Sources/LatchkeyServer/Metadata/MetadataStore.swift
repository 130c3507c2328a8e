import Foundation
import LatchkeyDatabase
import WebAuthn

/// The FIDO metadata (MDS3) as loaded from a verified BLOB: one BLOB at a time, replaced only by a newer one.
struct MetadataStore: Sendable {
    /// The store whose connections and audit trail it shares.
    let store: Store

    var connections: DatabaseConnections { store.connections }
    var audit: AuditTrail { store.audit }

    /// What loading a BLOB did.
    enum MetadataLoad: Sendable, Equatable {
        /// Stored, replacing the BLOB numbered `previous` (nil: the first).
        case loaded(previous: Int?)
        /// The stored BLOB has this number already: nothing changed.
        case alreadyLoaded
        /// The stored BLOB (numbered `stored`) is newer: nothing changed.
        case older(stored: Int)
    }

    /// Stores `blob`'s entries in place of the stored ones, in one transaction with the audit event that
    /// `event` makes (given the replaced BLOB's number) — unless the stored BLOB is as new or newer.
    func load(_ blob: MetadataBLOB, at: Date, event: @escaping @Sendable (_ previous: Int?) -> AuditEvent) async throws -> MetadataLoad {
        try await connections.transaction { db in
            let previous = try await db.first(StoreQuery(SQL.metadataBLOB)).map(MetadataBLOBRecord.init(row:))
            let replaced = try await db.first(StoreQuery(
                SQL.replaceMetadataBLOB, .integer(Int64(blob.number)), .text(blob.nextUpdate), .text(blob.legalHeader),
                .integer(Int64(blob.entries.count)), .milliseconds(at)))
            guard replaced != nil else {
                let stored = try await db.first(StoreQuery(SQL.metadataBLOB)).map(MetadataBLOBRecord.init(row:))
                return stored.map { $0.serial == blob.number ? .alreadyLoaded : .older(stored: $0.serial) } ?? .alreadyLoaded
            }
            try await db.run(StoreQuery(SQL.deleteMetadataEntries))
            for entry in blob.entries.map(MetadataRecord.init) {
                try await db.run(StoreQuery(
                    SQL.insertMetadataEntry, .blob(entry.aaguid), .text(entry.description), .blob(entry.joinedRootCertificates),
                    .text(entry.status?.rawValue), .text(entry.statusDate), .text(entry.icon)))
            }
            try await audit.append([event(previous?.serial)], on: db)
            return .loaded(previous: previous?.serial)
        }
    }

    /// The BLOB last loaded; nil before any.
    func blob() async throws -> MetadataBLOBRecord? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.metadataBLOB)).map(MetadataBLOBRecord.init(row:))
        }
    }

    /// The stored model with this AAGUID; nil when the metadata has none (or none is loaded).
    func entry(aaguid: [UInt8]) async throws -> MetadataRecord? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.metadataEntry, .blob(aaguid))).map(MetadataRecord.init(row:))
        }
    }
}

extension Store {
    /// The FIDO metadata BLOB in force and its entries.
    var metadata: MetadataStore { MetadataStore(store: self) }
}
