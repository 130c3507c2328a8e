import Foundation
@_spi(FixedExpiryValidationTime) import X509

/// A FIDO Metadata Service (MDS3) BLOB, verified: a JWT whose header's `x5c` chain leads to the
/// configured root and whose signature is that chain's leaf's, with a payload of a legal header, a
/// serial number, the date of the next update, and one entry per authenticator model.
///
/// Nothing here goes to the network: the BLOB is a file its operator downloaded (offline by design), and
/// the chain's certificates are not checked for revocation, which would need their CRLs.
public struct MetadataBLOB: Sendable, Equatable {
    /// `legalHeader`: the terms the BLOB is published under.
    public let legalHeader: String
    /// `no`: the serial number; each new BLOB has a larger one.
    public let number: Int
    /// `nextUpdate`, `YYYY-MM-DD` as written: the BLOB is out of date after this day.
    public let nextUpdate: String
    /// The FIDO2 entries (those with an AAGUID).
    public let entries: [MetadataEntry]
    /// Entries without an AAGUID (UAF and U2F models), which are not kept.
    public let otherEntries: Int

    public init(legalHeader: String, number: Int, nextUpdate: String, entries: [MetadataEntry], otherEntries: Int = 0) {
        self.legalHeader = legalHeader
        self.number = number
        self.nextUpdate = nextUpdate
        self.entries = entries
        self.otherEntries = otherEntries
    }

    /// The largest BLOB read: the real one is about 5 MB (2025); this leaves room to grow and keeps a
    /// file that is something else from being parsed.
    public static let maximumSize = 32 * 1024 * 1024
    /// The JWT header holds `alg`, `typ` and the `x5c` chain: a few KiB.
    static let maximumHeaderSize = 64 * 1024
    /// Certificates in `x5c`, and the size of each (the real chain: three of under 2 KiB).
    static let maximumChainLength = 8
    static let maximumCertificateSize = 16 * 1024

    /// Verifies `bytes`, the BLOB as downloaded (a compact JWS; trailing whitespace allowed), against
    /// `trust` at `now`: the signature, the chain, the signer's name, then the payload's legal header,
    /// `no`, `nextUpdate` (not past) and entries.
    public static func verify(_ bytes: [UInt8], trust: MetadataTrust, now: Date) async throws(MetadataBLOBError) -> MetadataBLOB {
        guard bytes.count <= maximumSize else {
            throw MetadataBLOBError(.tooLarge, "the metadata BLOB is \(bytes.count) bytes, over the limit of \(maximumSize)")
        }
        var end = bytes.count
        while end > 0, [0x20, 0x0a, 0x0d, 0x09].contains(bytes[end - 1]) { end -= 1 }
        let parts = bytes[..<end].split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count <= maximumHeaderSize,
              let headerBytes = Base64URL.decode(String(decoding: parts[0], as: UTF8.self)),
              let payloadBytes = Base64URL.decode(String(decoding: parts[1], as: UTF8.self)),
              let signature = Base64URL.decode(String(decoding: parts[2], as: UTF8.self)), !signature.isEmpty
        else { throw MetadataBLOBError(.malformed, "the metadata BLOB is not a JWT (three base64url parts separated by dots)") }

        // The header: alg and the chain, leaf first.
        guard let header = try? JSONShapeReader(JSONValue.parse(headerBytes)), let alg = try? header.string("alg"),
              let x5c = try? header.stringArray("x5c"), !x5c.isEmpty
        else { throw MetadataBLOBError(.malformed, "the metadata BLOB's JWT header is not JSON with alg and a non-empty x5c") }
        guard alg == "ES256" || alg == "RS256" else {
            throw MetadataBLOBError(.unsupportedAlgorithm, "the metadata BLOB is signed with \(alg.prefix(16)); only ES256 and RS256 are accepted")
        }
        guard x5c.count <= maximumChainLength else {
            throw MetadataBLOBError(.malformed, "the metadata BLOB's x5c has \(x5c.count) certificates, more than the limit of \(maximumChainLength)")
        }
        var chain: [Certificate] = []
        for (index, text) in x5c.enumerated() {
            guard let der = Data(base64Encoded: text), der.count <= maximumCertificateSize, let certificate = try? Certificate(derEncoded: Array(der)) else {
                throw MetadataBLOBError(.malformed, "x5c[\(index)] of the metadata BLOB's header is not a base64 DER certificate (of at most \(maximumCertificateSize) bytes)")
            }
            chain.append(certificate)
        }
        let leaf = chain[0]

        // The signature over "header.payload", by the leaf's key.
        if let bits = SignaturePublicKey(certificateKey: leaf.publicKey)?.oversizedRSABits {
            throw MetadataBLOBError(.signatureInvalid, "the metadata BLOB's signing key is \(bits) bits of RSA, over the \(SignaturePublicKey.maximumRSABits)-bit limit")
        }
        let signingInput = Array(bytes[..<parts[1].endIndex])
        guard JWSSignature.isValid(signature, over: signingInput, alg: alg, certificate: leaf) else {
            throw MetadataBLOBError(.signatureInvalid, "the metadata BLOB's signature does not verify with its signing certificate: it was altered, or is not a BLOB")
        }

        // The chain, to a configured root, at `now`.
        guard now >= AttestationTrust.earliestX509Time, now <= AttestationTrust.latestX509Time else {
            throw MetadataBLOBError(.chainInvalid, "the time is outside the years 0001–9999 that X.509 times can hold")
        }
        var verifier = Verifier(rootCertificates: CertificateStore(trust.roots)) { RFC5280Policy(fixedExpiryValidationTime: now) }
        switch await verifier.validate(leaf: leaf, intermediates: CertificateStore(chain.dropFirst())) {
        case .validCertificate: break
        case .couldNotValidate(let failures):
            let reason = failures.first.map { "\($0.policyFailureReason)" } ?? "no chain to the root"
            throw MetadataBLOBError(.chainInvalid, "the metadata BLOB's certificate chain does not lead to the configured root (\(reason))")
        }
        if let name = trust.signerName, !Self.isIssued(leaf, to: name) {
            throw MetadataBLOBError(.wrongSigner, "the metadata BLOB is signed by a certificate that is not issued to \(name)")
        }

        // The payload, signed: only now is it parsed.
        let payload: JSONShapeReader
        do {
            payload = try JSONShapeReader(try JSONValue.parse(payloadBytes))
        } catch {
            throw MetadataBLOBError(.payloadMalformed, "the metadata BLOB's payload is not a JSON object")
        }
        guard let legalHeader = try? payload.optionalString("legalHeader"), !legalHeader.isEmpty else {
            throw MetadataBLOBError(.legalHeaderMissing, "the metadata BLOB has no legalHeader (the terms it is published under)")
        }
        guard let number = try? payload.optionalInt("no"), number >= 0 else {
            throw MetadataBLOBError(.payloadMalformed, "the metadata BLOB has no serial number (no)")
        }
        guard let nextUpdate = try? payload.string("nextUpdate"), Self.day(nextUpdate) != nil else {
            throw MetadataBLOBError(.payloadMalformed, "the metadata BLOB's nextUpdate is not a date (YYYY-MM-DD)")
        }
        guard !isPast(nextUpdate: nextUpdate, at: now) else {
            throw MetadataBLOBError(.expired, "the metadata BLOB is out of date: its nextUpdate, \(nextUpdate), has passed; download a current one")
        }
        guard case .array(let items)? = payload.object["entries"] else {
            throw MetadataBLOBError(.payloadMalformed, "the metadata BLOB has no entries array")
        }
        var entries: [MetadataEntry] = []
        var seen = Set<[UInt8]>()
        for (index, item) in items.enumerated() {
            guard let entry = try MetadataEntry(json: item, index: index) else { continue }
            guard seen.insert(entry.aaguid).inserted else {
                throw MetadataBLOBError(.entryMalformed, "entry \(index) of the metadata BLOB repeats the AAGUID of an earlier one")
            }
            entries.append(entry)
        }
        return MetadataBLOB(legalHeader: legalHeader, number: number, nextUpdate: nextUpdate, entries: entries, otherEntries: items.count - entries.count)
    }

    /// Whether the day `nextUpdate` (`YYYY-MM-DD`) is over at `now` (in UTC): a BLOB is current through
    /// its `nextUpdate` day. A text that is not such a date is past.
    public static func isPast(nextUpdate: String, at now: Date) -> Bool {
        guard let start = day(nextUpdate) else { return true }
        return now >= start + 86_400
    }

    /// The start (00:00 UTC) of the day `YYYY-MM-DD`; nil for anything else.
    static func day(_ text: String) -> Date? {
        let fields = text.split(separator: "-", omittingEmptySubsequences: false)
        guard fields.count == 3, fields[0].count == 4, fields[1].count == 2, fields[2].count == 2,
              fields.allSatisfy({ $0.allSatisfy { $0.isASCII && $0.isNumber } }),
              let year = Int(fields[0]), let month = Int(fields[1]), let day = Int(fields[2]),
              (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var calendar = Calendar(identifier: .gregorian)
        guard let utc = TimeZone(identifier: "UTC") else { return nil }
        calendar.timeZone = utc
        let components = DateComponents(year: year, month: month, day: day)
        // A day past the month's end (2025-02-30) is not a date, rather than the next month's.
        guard let date = calendar.date(from: components), calendar.component(.day, from: date) == day else { return nil }
        return date
    }

    /// Whether `certificate` is issued to the DNS name `name`: a subjectAltName dNSName, or (without
    /// any) its common name.
    static func isIssued(_ certificate: Certificate, to name: String) -> Bool {
        if let names = try? certificate.extensions.subjectAlternativeNames {
            var dnsNames: [String] = []
            for alternative in names { if case .dnsName(let host) = alternative { dnsNames.append(host.lowercased()) } }
            if !dnsNames.isEmpty { return dnsNames.contains(name.lowercased()) }
        }
        return SubjectFields(certificate.subject).value(of: .RDNAttributeType.commonName)?.lowercased() == name.lowercased()
    }
}
