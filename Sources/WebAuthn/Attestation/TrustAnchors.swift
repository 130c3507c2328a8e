import Foundation
import SwiftASN1
import X509

/// The roots attestation chains are validated against (§7.1 step 24), per attestation format and/or
/// per AAGUID. With no anchor for a statement, its chain is reported as not verified — never as trusted.
public struct TrustAnchors: Sendable {
    public var byFormat: [String: [Certificate]]
    /// Keyed by the AAGUID's 16 bytes.
    public var byAAGUID: [[UInt8]: [Certificate]]

    public init(byFormat: [String: [Certificate]] = [:], byAAGUID: [[UInt8]: [Certificate]] = [:]) {
        self.byFormat = byFormat
        self.byAAGUID = byAAGUID
    }

    /// Parses PEM text holding one or more certificates.
    public static func certificates(fromPEM pem: String) throws -> [Certificate] {
        try PEMDocument.parseMultiple(pemString: pem).map { try Certificate(pemDocument: $0) }
    }

    /// Adds roots for an attestation format.
    public mutating func add(_ roots: [Certificate], forFormat format: String) {
        byFormat[format, default: []] += roots
    }

    /// Adds roots for one authenticator model.
    public mutating func add(_ roots: [Certificate], forAAGUID aaguid: [UInt8]) {
        byAAGUID[aaguid, default: []] += roots
    }

    /// Adds roots for one model given as DER (a FIDO metadata entry's `attestationRootCertificates`): one
    /// that does not parse as a certificate is skipped, since it cannot anchor anything.
    public mutating func add(derCertificates: [[UInt8]], forAAGUID aaguid: [UInt8]) {
        add(derCertificates.compactMap { try? Certificate(derEncoded: $0) }, forAAGUID: aaguid)
    }

    /// Loads every `.pem` file of a directory: files in a subdirectory named after a format (`packed/`,
    /// `tpm/` …) anchor that format; files at the top level anchor every format.
    public static func load(directory: URL) throws -> TrustAnchors {
        var anchors = TrustAnchors()
        let manager = FileManager.default
        let entries = try manager.contentsOfDirectory(at: directory, includingPropertiesForKeys: [.isDirectoryKey])
        for entry in entries.sorted(by: { $0.path < $1.path }) {
            let isDirectory = (try? entry.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) ?? false
            if isDirectory {
                let files = try manager.contentsOfDirectory(at: entry, includingPropertiesForKeys: nil)
                for file in files where file.pathExtension == "pem" {
                    anchors.add(try certificates(fromPEM: String(contentsOf: file, encoding: .utf8)), forFormat: entry.lastPathComponent)
                }
            } else if entry.pathExtension == "pem" {
                anchors.add(try certificates(fromPEM: String(contentsOf: entry, encoding: .utf8)), forFormat: anyFormat)
            }
        }
        return anchors
    }

    /// The key under which roots for every format are kept.
    public static let anyFormat = "*"

    func roots(format: String, aaguid: [UInt8]) -> [Certificate] {
        (byFormat[format] ?? []) + (byFormat[Self.anyFormat] ?? []) + (byAAGUID[aaguid] ?? [])
    }
}
