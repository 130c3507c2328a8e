import Foundation
import Logging
import NIOPosix
import WebAuthn

/// `latchkey mds`: the FIDO metadata in the database — loading a BLOB file (`MetadataLoader`, as `serve
/// --mds-blob` does at start) and showing what is loaded. Works on the database directly, like
/// `latchkey admin`; a running server uses a newly loaded BLOB from its next registration on.
package enum MetadataConsole {
    /// A refusal: one sentence, and the exit status (1: the BLOB was refused or is older than the stored one).
    package struct Refusal: Error, CustomStringConvertible {
        package let description: String
    }

    /// Verifies `file` (against `root`'s certificates, else the FIDO Alliance's) and stores it; answers
    /// the sentence to print.
    package static func load(configuration: ServerConfiguration, file: String, root: String?, now: Date = Date()) async throws -> String {
        try await withStore(configuration) { store in
            do {
                let outcome = try await MetadataLoader.load(file: file, rootFile: root, store: store, now: now, origin: .cli)
                if case .older = outcome.result { throw Refusal(description: outcome.sentence) }
                return outcome.sentence
            } catch let refused as MetadataLoader.Refused {
                throw Refusal(description: refused.description + ".")
            }
        }
    }

    /// The loaded BLOB, or a model's entry by AAGUID; with `json`, as one JSON object.
    package static func show(configuration: ServerConfiguration, aaguid: String?, json: Bool, now: Date = Date()) async throws -> String {
        try await withStore(configuration) { store in
            if let aaguid {
                guard let bytes = PasskeyProviders.bytes(uuid: aaguid) else {
                    throw ServerConfiguration.Invalid(description: "--aaguid must be a UUID such as cb69481e-8ff7-4039-93ec-0a2729a154a8, not \(aaguid)")
                }
                guard let entry = try await store.metadata.entry(aaguid: bytes) else {
                    throw Refusal(description: "The stored metadata has no authenticator model with the AAGUID \(aaguid.lowercased()).")
                }
                return json ? try text(EntryJSON(entry)) : [
                    "AAGUID:       \(AAGUIDFormat.string(entry.aaguid))",
                    "Description:  \(entry.description)",
                    "Status:       \(entry.status.map { "\($0.rawValue)\(entry.statusDate.map { " since \($0)" } ?? "")" } ?? "(no status reports)")",
                    "Roots:        \(entry.rootCertificates.count) attestation root certificate\(entry.rootCertificates.count == 1 ? "" : "s")",
                    "Compromised:  \(entry.status?.isCompromised == true ? "yes: new passkeys of this model are refused" : "no")",
                ].joined(separator: "\n")
            }
            guard let blob = try await store.metadata.blob() else {
                return json ? "{\"loaded\":false}" : "No FIDO metadata is loaded (latchkey mds load FILE, or latchkey serve --mds-blob FILE)."
            }
            let outOfDate = MetadataBLOB.isPast(nextUpdate: blob.nextUpdate, at: now)
            if json { return try text(BLOBJSON(blob, outOfDate: outOfDate)) }
            return [
                "BLOB:         \(blob.serial)",
                "Next update:  \(blob.nextUpdate)\(outOfDate ? " (past: load a newer BLOB)" : "")",
                "Models:       \(blob.entries)",
                "Loaded:       \(ISO8601DateFormatter().string(from: blob.loadedAt))",
            ].joined(separator: "\n")
        }
    }

    private static func withStore<T: Sendable>(_ configuration: ServerConfiguration, _ body: (Store) async throws -> T) async throws -> T {
        var logger = Logger(label: "latchkey-mds")
        logger.logLevel = .critical
        let connections = try await configuration.openMigratedDatabase(logger: logger, eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
        // The configured webhook endpoints too: the load's audit event is queued for them like any other.
        let store = Store(connections: connections, webhookEndpoints: configuration.webhookEndpoints.map(\.id))
        do {
            let answer = try await body(store)
            try? await connections.shutdown()
            return answer
        } catch {
            try? await connections.shutdown()
            throw error
        }
    }

    private static func text(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    private struct BLOBJSON: Encodable {
        let loaded = true
        let serial: Int
        let nextUpdate: String
        let outOfDate: Bool
        let entries: Int
        let loadedAt: Date

        init(_ blob: MetadataBLOBRecord, outOfDate: Bool) {
            serial = blob.serial
            nextUpdate = blob.nextUpdate
            self.outOfDate = outOfDate
            entries = blob.entries
            loadedAt = blob.loadedAt
        }
    }

    private struct EntryJSON: Encodable {
        let aaguid: String
        let description: String
        let status: String?
        let statusDate: String?
        let compromised: Bool
        let attestationRootCertificates: Int
        let icon: String?

        init(_ entry: MetadataRecord) {
            aaguid = AAGUIDFormat.string(entry.aaguid)
            description = entry.description
            status = entry.status?.rawValue
            statusDate = entry.statusDate
            compromised = entry.status?.isCompromised == true
            attestationRootCertificates = entry.rootCertificates.count
            icon = entry.icon
        }
    }
}
