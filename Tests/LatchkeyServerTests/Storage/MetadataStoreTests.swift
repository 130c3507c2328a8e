import Foundation
import Testing
import WebAuthn
@testable import LatchkeyServer

/// The FIDO metadata in the store, on every database: the first BLOB is stored, a newer one replaces
/// every entry, the same one changes nothing, an older one is kept out; each load is audited in its
/// transaction. Part of the storage suite (one PostgreSQL database, one test at a time).
extension StoreTests {
  @Suite struct Metadata {
    static let at = Date(timeIntervalSince1970: 1_800_000_000)
    static let soft = Array("latchkeySoftAuth".utf8)
    static let other: [UInt8] = Array(1...16)

    static func blob(_ number: Int, _ entries: [MetadataEntry]) -> MetadataBLOB {
        MetadataBLOB(legalHeader: "terms", number: number, nextUpdate: "2027-01-15", entries: entries)
    }

    static func entry(_ aaguid: [UInt8], _ description: String, roots: [[UInt8]] = [], status: String? = nil) -> MetadataEntry {
        MetadataEntry(
            aaguid: aaguid, description: description, icon: "data:image/png;base64,AAAA", attestationRootCertificates: roots,
            statusReports: status.map { [.init(status: .init(rawValue: "FIDO_CERTIFIED"), effectiveDate: "2020-01-01"), .init(status: .init(rawValue: $0), effectiveDate: "2024-01-01")] } ?? [])
    }

    static func load(_ store: Store, _ blob: MetadataBLOB) async throws -> MetadataStore.MetadataLoad {
        try await store.metadata.load(blob, at: at) { previous in
            var detail: AuditDetail = ["serial": .number(blob.number)]
            if let previous { detail.members.append(("previousSerial", .number(previous))) }
            return AuditOrigin.test.event(.metadataLoaded, at: at, account: nil, detail: detail)
        }
    }

    @Test("a newer BLOB replaces every entry, the same one changes nothing, an older one is kept out", arguments: Backends.all)
    func replacing(backend: String) async throws {
        try await Backends.with(backend) { store in
            #expect(try await store.metadata.blob() == nil)
            let root: [UInt8] = [0x30, 0x03, 0x02, 0x01, 0x00]
            #expect(try await Self.load(store, Self.blob(5, [Self.entry(Self.soft, "Soft", roots: [root, root]), Self.entry(Self.other, "Key")])) == .loaded(previous: nil))
            let soft = try #require(try await store.metadata.entry(aaguid: Self.soft))
            #expect(soft.description == "Soft" && soft.rootCertificates == [root, root] && soft.icon == "data:image/png;base64,AAAA" && soft.status == nil)
            #expect(try await store.metadata.blob()?.serial == 5)

            #expect(try await Self.load(store, Self.blob(5, [])) == .alreadyLoaded)
            #expect(try await Self.load(store, Self.blob(4, [])) == .older(stored: 5))
            #expect(try await store.metadata.entry(aaguid: Self.other) != nil, "a refused BLOB changes nothing")

            #expect(try await Self.load(store, Self.blob(6, [Self.entry(Self.other, "Key v2", status: "REVOKED")])) == .loaded(previous: 5))
            #expect(try await store.metadata.entry(aaguid: Self.soft) == nil, "entries the newer BLOB lacks are gone")
            let key = try #require(try await store.metadata.entry(aaguid: Self.other))
            #expect(key.description == "Key v2" && key.status == .revoked && key.statusDate == "2024-01-01")
            let stored = try #require(try await store.metadata.blob())
            #expect(stored.serial == 6 && stored.entries == 1 && stored.nextUpdate == "2027-01-15" && stored.legalHeader == "terms")

            let trail = try await store.auditEvents(Store.AuditQuery(kind: .metadataLoaded))
            #expect(trail.map(\.detail) == ["{\"previousSerial\":5,\"serial\":6}", "{\"serial\":5}"])
        }
    }

    @Test("DER certificates written one after another come apart again; anything else ends the list")
    func splitting() {
        let short: [UInt8] = [0x30, 0x03, 0x02, 0x01, 0x00]
        let long: [UInt8] = [0x30, 0x81, 0x80] + [UInt8](repeating: 0x05, count: 0x80)
        #expect(MetadataRecord.split(short + long + short) == [short, long, short])
        #expect(MetadataRecord.split(short + [0x30, 0x05, 0x00]) == [short], "a truncated certificate")
        #expect(MetadataRecord.split([0x31, 0x00]) == [])
        #expect(MetadataRecord.split([]) == [])
    }

    @Test("a compromised model is refused in words naming its status; a certified or updated one is not")
    func refusals() throws {
        let revoked = MetadataRecord(Self.entry(Self.soft, "Soft", status: "USER_KEY_REMOTE_COMPROMISE"))
        let words = try #require(MetadataRefusal.refusal(revoked, name: "Soft"))
        #expect(words.contains("stolen remotely") && words.contains("USER_KEY_REMOTE_COMPROMISE") && words.hasPrefix("Soft "))
        #expect(MetadataRefusal.refusal(MetadataRecord(Self.entry(Self.soft, "Soft", status: "UPDATE_AVAILABLE")), name: "Soft") == nil)
        #expect(MetadataRefusal.refusal(MetadataRecord(Self.entry(Self.soft, "Soft")), name: "Soft") == nil)
    }
  }
}
