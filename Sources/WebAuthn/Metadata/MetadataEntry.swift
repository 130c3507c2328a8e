import Foundation

/// One FIDO2 authenticator model of a metadata BLOB (MDS3 §3.1.1, `MetadataBLOBPayloadEntry`): the parts
/// a relying party acts on. UAF and U2F entries (named by AAID or attestation key identifiers, not by an
/// AAGUID) are not kept.
public struct MetadataEntry: Sendable, Equatable {
    public let aaguid: [UInt8]
    /// The model's name as its vendor gave it (`metadataStatement.description`).
    public let description: String
    /// `metadataStatement.icon`: a `data:image/…` URL; nil when absent or over `maximumIconSize`.
    public let icon: String?
    /// `metadataStatement.attestationRootCertificates`, DER: the roots this model's attestation chains
    /// lead to. Kept as bytes; a certificate that does not parse is skipped when it is used.
    public let attestationRootCertificates: [[UInt8]]
    public let statusReports: [StatusReport]

    /// One of `statusReports`.
    public struct StatusReport: Sendable, Equatable {
        public let status: AuthenticatorStatus
        /// `YYYY-MM-DD`, when the report gives one.
        public let effectiveDate: String?

        public init(status: AuthenticatorStatus, effectiveDate: String?) {
            self.status = status
            self.effectiveDate = effectiveDate
        }
    }

    /// Icons are PNGs of a few KiB; a larger one is dropped rather than stored and served.
    public static let maximumIconSize = 64 * 1024

    public init(aaguid: [UInt8], description: String, icon: String?, attestationRootCertificates: [[UInt8]], statusReports: [StatusReport]) {
        self.aaguid = aaguid
        self.description = description
        self.icon = icon
        self.attestationRootCertificates = attestationRootCertificates
        self.statusReports = statusReports
    }

    /// The report in force: the one with the latest `effectiveDate` (reports without one count as the
    /// oldest), the later in the list on a tie. Nil when there are no reports.
    public var latestStatus: StatusReport? {
        statusReports.enumerated().max { a, b in
            let (dateA, dateB) = (a.element.effectiveDate ?? "", b.element.effectiveDate ?? "")
            return dateA == dateB ? a.offset < b.offset : dateA < dateB
        }?.element
    }
}

extension MetadataEntry {
    /// Reads entry number `index` of the payload's `entries`; nil for an entry without an AAGUID (UAF, U2F).
    init?(json value: JSONValue, index: Int) throws(MetadataBLOBError) {
        do {
            guard let entry = try Self.read(value, index: index) else { return nil }
            self = entry
        } catch let shape as JSONShapeError {
            let member = shape.path.joined(separator: ".")
            let problem = switch shape.problem {
            case .missing: "has no \(member)"
            case .null: "has null for \(member)"
            case .wrongType: "has \(member) of the wrong type"
            }
            throw MetadataBLOBError(.entryMalformed, "entry \(index) of the metadata BLOB \(problem)")
        } catch let error as MetadataBLOBError {
            throw error
        } catch {
            throw MetadataBLOBError(.entryMalformed, "entry \(index) of the metadata BLOB cannot be read")
        }
    }

    private static func read(_ value: JSONValue, index: Int) throws -> MetadataEntry? {
        func malformed(_ reason: String) -> MetadataBLOBError {
            MetadataBLOBError(.entryMalformed, "entry \(index) of the metadata BLOB \(reason)")
        }
        let entry = try JSONShapeReader(value)
        let statement = try entry.optionalObject("metadataStatement")
        let entryAAGUID = try entry.optionalString("aaguid")
        let statementAAGUID = try statement?.optionalString("aaguid")
        guard let uuid = entryAAGUID ?? statementAAGUID else { return nil }
        guard let aaguid = bytes(uuid: uuid) else { throw malformed("has the aaguid \"\(uuid.prefix(40))\", which is not a UUID") }
        if let statementAAGUID, bytes(uuid: statementAAGUID) != aaguid {
            throw malformed("(\(uuid)) names two different AAGUIDs, the entry's and its metadataStatement's")
        }
        guard let statement else { throw malformed("(\(uuid)) has no metadataStatement") }
        let description = try statement.string("description")
        var roots: [[UInt8]] = []
        for (position, certificate) in (try statement.optionalStringArray("attestationRootCertificates") ?? []).enumerated() {
            guard let der = Data(base64Encoded: certificate), !der.isEmpty else {
                throw malformed("(\(uuid)) has attestationRootCertificates[\(position)] that is not base64")
            }
            roots.append(Array(der))
        }
        var reports: [StatusReport] = []
        switch entry.object["statusReports"] {
        case nil, .null?: break
        case .array(let items)?:
            for (position, item) in items.enumerated() {
                let report = try JSONShapeReader(item, at: ["statusReports", String(position)])
                reports.append(StatusReport(
                    status: AuthenticatorStatus(rawValue: try report.string("status")), effectiveDate: try report.optionalString("effectiveDate")))
            }
        default:
            throw JSONShapeError(.wrongType, at: ["statusReports"])
        }
        let icon = try statement.optionalString("icon").flatMap { icon in
            icon.hasPrefix("data:image/") && icon.utf8.count <= maximumIconSize ? icon : nil
        }
        return MetadataEntry(aaguid: aaguid, description: description, icon: icon, attestationRootCertificates: roots, statusReports: reports)
    }

    /// The 16 bytes of a UUID written in either case.
    static func bytes(uuid: String) -> [UInt8]? {
        guard let uuid = UUID(uuidString: uuid) else { return nil }
        return withUnsafeBytes(of: uuid.uuid) { Array($0) }
    }
}
