import Foundation
import WebAuthn

/// Loading a FIDO metadata BLOB from a file into the database: `latchkey mds load FILE [--root PEM]` and
/// `latchkey serve --mds-blob FILE [--mds-root PEM]`. Offline by design: the operator downloads the BLOB
/// (https://mds3.fidoalliance.org/, daily by a timer) and Latchkey never fetches anything itself.
/// A file that cannot be read is a `ServerConfiguration.Invalid`, a BLOB that does not verify a `Refused`,
/// each one sentence naming the file.
enum MetadataLoader {
    /// The BLOB was read but not accepted (`latchkey mds load` exits 1; `serve` does not start).
    struct Refused: Error, Sendable, CustomStringConvertible {
        let description: String
    }

    /// What a load did, and the BLOB it read.
    struct Outcome: Sendable {
        let blob: MetadataBLOB
        let result: MetadataStore.MetadataLoad

        /// One sentence for the operator.
        var sentence: String {
            let which = "metadata BLOB \(blob.number) (\(blob.entries.count) authenticator model\(blob.entries.count == 1 ? "" : "s"), next update \(blob.nextUpdate))"
            switch result {
            case .loaded(let previous?): return "Loaded \(which), replacing BLOB \(previous)."
            case .loaded(nil): return "Loaded \(which)."
            case .alreadyLoaded: return "The \(which) is loaded already; nothing changed."
            case .older(let stored): return "Kept BLOB \(stored): the \(which) is older."
            }
        }
    }

    /// The roots a BLOB must chain to: the PEM file's certificates, else the FIDO Alliance's.
    static func trust(rootFile: String?) throws(ServerConfiguration.Invalid) -> MetadataTrust {
        guard let rootFile else {
            do { return try MetadataTrust.fidoAlliance() } catch {
                throw ServerConfiguration.Invalid(description: "the FIDO Alliance's root certificates built into Latchkey cannot be read (\(error))")
            }
        }
        let pem = try read(rootFile, limit: 1024 * 1024, what: "metadata root")
        guard let trust = try? MetadataTrust.roots(fromPEM: String(decoding: pem, as: UTF8.self)), !trust.roots.isEmpty else {
            throw ServerConfiguration.Invalid(description: "the metadata root \(rootFile) holds no PEM certificate")
        }
        return trust
    }

    /// The file's bytes, refused when larger than `limit` (read no further than one byte past it).
    static func read(_ path: String, limit: Int, what: String) throws(ServerConfiguration.Invalid) -> [UInt8] {
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw ServerConfiguration.Invalid(description: "the \(what) file \(path) cannot be opened")
        }
        defer { try? handle.close() }
        let data: Data?
        do { data = try handle.read(upToCount: limit + 1) } catch {
            throw ServerConfiguration.Invalid(description: "the \(what) file \(path) cannot be read (\(error.localizedDescription))")
        }
        let bytes = Array(data ?? Data())
        guard bytes.count <= limit else {
            throw ServerConfiguration.Invalid(description: "the \(what) file \(path) is larger than \(limit) bytes")
        }
        return bytes
    }

    /// Verifies the BLOB in `file` against `rootFile`'s roots (else the FIDO Alliance's) at `now`, and
    /// stores its entries unless the stored BLOB is as new (audited as `metadata.loaded` from `origin`).
    static func load(file: String, rootFile: String?, store: Store, now: Date, origin: AuditOrigin) async throws -> Outcome {
        let trust = try trust(rootFile: rootFile)
        let bytes = try read(file, limit: MetadataBLOB.maximumSize, what: "metadata BLOB")
        let blob: MetadataBLOB
        do {
            blob = try await MetadataBLOB.verify(bytes, trust: trust, now: now)
        } catch {
            throw Refused(description: "\(file): \(error.description)")
        }
        let result = try await store.metadata.load(blob, at: now) { previous in
            var detail: AuditDetail = [
                "serial": .number(blob.number), "nextUpdate": .text(blob.nextUpdate), "entries": .number(blob.entries.count),
            ]
            if let previous { detail.members.append(("previousSerial", .number(previous))) }
            return origin.event(.metadataLoaded, at: now, account: nil, detail: detail)
        }
        return Outcome(blob: blob, result: result)
    }
}
