import Crypto
import Foundation
import SwiftASN1
import Testing
import X509
@testable import WebAuthn

/// FIDO metadata BLOBs (MDS3) built here — a root, an intermediate and a signing leaf, the payload signed
/// ES256 — and each way of being refused.
@Suite("FIDO metadata BLOBs")
struct MetadataBLOBTests {
    static let soft = "6c617463-686b-6579-536f-667441757468"
    static let other = "cb69481e-8ff7-4039-93ec-0a2729a154a8"
    static let legal = "Retrieval and use of this BLOB indicates acceptance of the appropriate agreement."

    /// A metadata service's certificates.
    struct Service {
        let root: TestPKI.Issued
        let intermediate: TestPKI.Issued
        let leaf: TestPKI.Issued

        init(signer: String = "mds.example.test") throws {
            root = try TestPKI.root(name: "Metadata Test Root")
            let intermediateKey = P256.Signing.PrivateKey()
            let intermediateName = try DistinguishedName { CommonName("Metadata Test Intermediate") }
            intermediate = TestPKI.Issued(certificate: try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(intermediateKey.publicKey),
                notValidBefore: Date() - 86_400, notValidAfter: Date() + 86_400 * 30, issuer: root.certificate.subject, subject: intermediateName,
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    KeyUsage(keyCertSign: true)
                },
                issuerPrivateKey: .init(root.key)), key: intermediateKey)
            let leafKey = P256.Signing.PrivateKey()
            leaf = TestPKI.Issued(certificate: try Certificate(
                version: .v3, serialNumber: .init(), publicKey: .init(leafKey.publicKey),
                notValidBefore: Date() - 86_400, notValidAfter: Date() + 86_400 * 30, issuer: intermediateName,
                subject: try DistinguishedName { CommonName(signer) },
                signatureAlgorithm: .ecdsaWithSHA256,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.notCertificateAuthority)
                    SubjectAlternativeNames([.dnsName(signer)])
                },
                issuerPrivateKey: .init(intermediateKey)), key: leafKey)
        }

        var trust: MetadataTrust { MetadataTrust(roots: [root.certificate], signerName: nil) }

        /// The compact JWS of `payload` (JSON text), with `header` members beside alg and x5c.
        func blob(_ payload: String, alg: String = "ES256") throws -> [UInt8] {
            let x5c = try [leaf.certificate, intermediate.certificate].map { certificate in
                var serializer = DER.Serializer()
                try serializer.serialize(certificate)
                return "\"" + Data(serializer.serializedBytes).base64EncodedString() + "\""
            }
            let header = "{\"alg\":\"\(alg)\",\"typ\":\"JWT\",\"x5c\":[\(x5c.joined(separator: ","))]}"
            let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
            let signature = try leaf.key.signature(for: Array(input.utf8)).rawRepresentation
            return Array((input + "." + Base64URL.encode(signature)).utf8)
        }
    }

    static func day(_ offset: Int) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date() + Double(offset) * 86_400)
    }

    static func entry(_ aaguid: String, _ description: String, statuses: [(String, String?)] = [("FIDO_CERTIFIED_L1", "2024-01-02")], extra: String = "") -> String {
        let reports = statuses.map { status, date in "{\"status\":\"\(status)\"\(date.map { ",\"effectiveDate\":\"\($0)\"" } ?? "")}" }
        return """
            {"aaguid":"\(aaguid)","metadataStatement":{"aaguid":"\(aaguid)","description":"\(description)","attestationRootCertificates":["MAMCAQA="]\(extra)},\
            "statusReports":[\(reports.joined(separator: ","))]}
            """
    }

    static func payload(number: Int = 1, nextUpdate: String = day(30), legal: Bool = true, entries: [String]) -> String {
        "{\(legal ? "\"legalHeader\":\"\(Self.legal)\"," : "")\"no\":\(number),\"nextUpdate\":\"\(nextUpdate)\",\"entries\":[\(entries.joined(separator: ","))]}"
    }

    func refusal(_ bytes: [UInt8], trust: MetadataTrust) async -> MetadataBLOBError? {
        do {
            _ = try await MetadataBLOB.verify(bytes, trust: trust, now: Date())
            return nil
        } catch {
            return error
        }
    }

    @Test("a good BLOB: its number, next update and FIDO2 entries; UAF entries left out, the latest status found")
    func good() async throws {
        let service = try Service()
        let icon = "data:image/png;base64,iVBORw0KGgo="
        let blob = try await MetadataBLOB.verify(try service.blob(Self.payload(number: 42, entries: [
            Self.entry(Self.soft, "Soft", statuses: [("FIDO_CERTIFIED_L1", "2023-01-01"), ("REVOKED", "2024-02-01"), ("FIDO_CERTIFIED", nil)],
                       extra: ",\"icon\":\"\(icon)\""),
            Self.entry(Self.other, "Other", extra: ",\"icon\":\"data:image/png;base64,\(String(repeating: "A", count: MetadataEntry.maximumIconSize))\""),
            "{\"aaid\":\"4e4e#4005\",\"metadataStatement\":{\"description\":\"UAF\"}}",
        ])), trust: service.trust, now: Date())
        #expect(blob.number == 42 && blob.legalHeader == Self.legal && blob.nextUpdate == Self.day(30))
        #expect(blob.entries.map(\.description) == ["Soft", "Other"] && blob.otherEntries == 1)
        let soft = try #require(blob.entries.first)
        #expect(AAGUIDFormat.string(soft.aaguid) == Self.soft)
        #expect(soft.attestationRootCertificates == [[0x30, 0x03, 0x02, 0x01, 0x00]])
        #expect(soft.latestStatus?.status == .revoked && soft.latestStatus?.status.isCompromised == true)
        #expect(soft.icon == icon)
        #expect(blob.entries[1].icon == nil, "an icon over the size limit is dropped")
    }

    @Test("a payload changed after signing is refused by its signature")
    func tampered() async throws {
        let service = try Service()
        var bytes = try service.blob(Self.payload(entries: [Self.entry(Self.soft, "Soft", statuses: [("REVOKED", "2024-01-01")])]))
        let parts = String(decoding: bytes, as: UTF8.self).split(separator: ".").map(String.init)
        let altered = Self.payload(entries: [Self.entry(Self.soft, "Soft", statuses: [("FIDO_CERTIFIED_L1", "2024-01-01")])])
        bytes = Array((parts[0] + "." + Base64URL.encode(Array(altered.utf8)) + "." + parts[2]).utf8)
        #expect(await refusal(bytes, trust: service.trust)?.reason == .signatureInvalid)
    }

    @Test("a BLOB past its nextUpdate is refused naming the date; through that day it is current")
    func expired() async throws {
        let service = try Service()
        let error = await refusal(try service.blob(Self.payload(nextUpdate: Self.day(-1), entries: [])), trust: service.trust)
        #expect(error?.reason == .expired && error?.description.contains(Self.day(-1)) == true)
        #expect(await refusal(try service.blob(Self.payload(nextUpdate: Self.day(0), entries: [])), trust: service.trust) == nil)
        #expect(MetadataBLOB.isPast(nextUpdate: "2024-03-01", at: Date(timeIntervalSince1970: 1_709_337_599)) == false)  // 2024-03-01T23:59:59Z
        #expect(MetadataBLOB.isPast(nextUpdate: "2024-03-01", at: Date(timeIntervalSince1970: 1_709_337_600)) == true)
        #expect(MetadataBLOB.isPast(nextUpdate: "2024-02-30", at: Date(timeIntervalSince1970: 0)), "not a date: past")
    }

    @Test("a BLOB chained to another root, or signed by another name than the trust requires, is refused")
    func chain() async throws {
        let service = try Service()
        let stranger = try Service()
        let bytes = try service.blob(Self.payload(entries: []))
        #expect(await refusal(bytes, trust: stranger.trust)?.reason == .chainInvalid)
        #expect(await refusal(bytes, trust: try MetadataTrust.fidoAlliance())?.reason == .chainInvalid)
        var named = service.trust
        named.signerName = "mds.fidoalliance.org"
        #expect(await refusal(bytes, trust: named)?.reason == .wrongSigner)
        named.signerName = "MDS.example.test"
        #expect(await refusal(bytes, trust: named) == nil)
    }

    @Test("the FIDO Alliance's roots are built in: GlobalSign Root CA - R3 and Root R46, for mds.fidoalliance.org only")
    func fidoRoots() throws {
        let trust = try MetadataTrust.fidoAlliance()
        #expect(trust.signerName == "mds.fidoalliance.org")
        let names = trust.roots.map { SubjectFields($0.subject).value(of: .RDNAttributeType.commonName) }
        #expect(names == ["GlobalSign", "GlobalSign Root R46"])
        let fingerprints = try trust.roots.map { certificate in
            var serializer = DER.Serializer()
            try serializer.serialize(certificate)
            return SHA256.hash(data: serializer.serializedBytes).map { String(format: "%02X", $0) }.joined()
        }
        #expect(fingerprints == [
            "CBB522D7B7F127AD6A0113865BDF1CD4102E7D0759AF635A7CF4720DC963C53B",
            "4FA3126D8D3A11D1C4855A4F807CBAD6CF919D3A5A88B03BEA2C6372D93C40C9",
        ])
    }

    @Test("no legal header, no serial number, no entries, a bad date: each refused in its own words")
    func payloadRules() async throws {
        let service = try Service()
        #expect(await refusal(try service.blob(Self.payload(legal: false, entries: [])), trust: service.trust)?.reason == .legalHeaderMissing)
        let noNumber = "{\"legalHeader\":\"x\",\"nextUpdate\":\"\(Self.day(3))\",\"entries\":[]}"
        #expect(await refusal(try service.blob(noNumber), trust: service.trust)?.reason == .payloadMalformed)
        let noEntries = "{\"legalHeader\":\"x\",\"no\":1,\"nextUpdate\":\"\(Self.day(3))\"}"
        #expect(await refusal(try service.blob(noEntries), trust: service.trust)?.reason == .payloadMalformed)
        #expect(await refusal(try service.blob(Self.payload(nextUpdate: "soon", entries: [])), trust: service.trust)?.reason == .payloadMalformed)
        #expect(await refusal(try service.blob("[1,2]"), trust: service.trust)?.reason == .payloadMalformed)
    }

    @Test("malformed entries refuse the whole BLOB, naming the entry: a status may not be lost")
    func entries() async throws {
        let service = try Service()
        func reason(_ entry: String) async throws -> MetadataBLOBError? {
            await refusal(try service.blob(Self.payload(entries: [Self.entry(Self.other, "Fine"), entry])), trust: service.trust)
        }
        let badUUID = try await reason(Self.entry("not-a-uuid", "Bad"))
        #expect(badUUID?.reason == .entryMalformed && badUUID?.description.contains("entry 1") == true)
        #expect(try await reason("{\"aaguid\":\"\(Self.soft)\",\"metadataStatement\":{\"description\":\"x\"},\"statusReports\":{}}")?.reason == .entryMalformed)
        #expect(try await reason("{\"aaguid\":\"\(Self.soft)\",\"metadataStatement\":{\"description\":\"x\"},\"statusReports\":[{\"effectiveDate\":\"2024-01-01\"}]}")?.reason == .entryMalformed)
        #expect(try await reason("{\"aaguid\":\"\(Self.soft)\",\"metadataStatement\":{\"description\":7}}")?.reason == .entryMalformed)
        #expect(try await reason("{\"aaguid\":\"\(Self.soft)\",\"metadataStatement\":{\"description\":\"x\",\"attestationRootCertificates\":[\"%%\"]}}")?.reason == .entryMalformed)
        #expect(try await reason("{\"aaguid\":\"\(Self.soft)\",\"metadataStatement\":{\"aaguid\":\"\(Self.other)\",\"description\":\"x\"}}")?.reason == .entryMalformed)
        #expect(try await reason("{\"aaguid\":\"\(Self.soft)\"}")?.reason == .entryMalformed)
        #expect(try await reason(Self.entry(Self.other, "Again"))?.reason == .entryMalformed, "a repeated AAGUID")
    }

    @Test("not a JWT, a header without x5c, alg none or HS256, or over 32 MiB: refused before any parsing of the payload")
    func shapes() async throws {
        let service = try Service()
        #expect(await refusal(Array("not a jwt".utf8), trust: service.trust)?.reason == .malformed)
        #expect(await refusal(Array("a.b.c.d".utf8), trust: service.trust)?.reason == .malformed)
        let headerless = Base64URL.encode(Array("{\"alg\":\"ES256\"}".utf8)) + "." + Base64URL.encode(Array("{}".utf8)) + ".AAAA"
        #expect(await refusal(Array(headerless.utf8), trust: service.trust)?.reason == .malformed)
        #expect(await refusal(try service.blob(Self.payload(entries: []), alg: "none"), trust: service.trust)?.reason == .unsupportedAlgorithm)
        #expect(await refusal(try service.blob(Self.payload(entries: []), alg: "HS256"), trust: service.trust)?.reason == .unsupportedAlgorithm)
        #expect(await refusal([UInt8](repeating: 0x41, count: MetadataBLOB.maximumSize + 1), trust: service.trust)?.reason == .tooLarge)
        // A trailing newline (as a download may end) is fine.
        #expect(await refusal(try service.blob(Self.payload(entries: [])) + [0x0a], trust: service.trust) == nil)
    }

    @Test("the AAGUID a registration claims is read before verification")
    func claimedAAGUID() throws {
        var fabricator = Fabricator()
        fabricator.aaguid = Array(1...16)
        let registration = fabricator.registration()
        #expect(registration.claimedAAGUID == fabricator.aaguid)
        var broken = registration
        broken.response.attestationObject = "AAAA"
        #expect(broken.claimedAAGUID == nil)
    }
}
