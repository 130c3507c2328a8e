/// The TPM 2.0 structures the `tpm` attestation statement carries (TPM 2.0 Part 2), read through the
/// bounds-checked `ByteReader`: big-endian integers and size-prefixed (TPM2B) byte strings.
enum TPMAlgorithm {
    static let rsa: UInt16 = 0x0001
    static let sha1: UInt16 = 0x0004
    static let sha256: UInt16 = 0x000B
    static let sha384: UInt16 = 0x000C
    static let sha512: UInt16 = 0x000D
    static let null: UInt16 = 0x0010
    static let ecc: UInt16 = 0x0023
}

/// TPMT_PUBLIC: the public area of the key the TPM certifies.
struct TPMPublicArea {
    enum Parameters {
        case rsa(keyBits: UInt16, exponent: UInt32, modulus: [UInt8])
        case ecc(curve: UInt16, x: [UInt8], y: [UInt8])
    }

    let type: UInt16
    let nameAlg: UInt16
    let parameters: Parameters

    /// TPM 2.0 Part 2 gives the symmetric and scheme members details after a non-null algorithm, but
    /// several producers (and other relying parties' parsers) write the algorithm alone. The layout that
    /// ends exactly at the end of the bytes, with the size-prefixed key material consuming the rest, is
    /// the one used; only one can.
    init(_ bytes: [UInt8]) throws(ByteReader.OutOfBytes) {
        var lastError = ByteReader.OutOfBytes(offset: 0, wanted: 0)
        for (symmetricDetails, schemeDetails) in [(true, true), (false, false), (true, false), (false, true)] {
            do {
                self = try Self.parse(bytes, symmetricDetails: symmetricDetails, schemeDetails: schemeDetails)
                return
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    private init(type: UInt16, nameAlg: UInt16, parameters: Parameters) {
        self.type = type
        self.nameAlg = nameAlg
        self.parameters = parameters
    }

    private static func parse(_ bytes: [UInt8], symmetricDetails: Bool, schemeDetails: Bool) throws(ByteReader.OutOfBytes) -> TPMPublicArea {
        var r = ByteReader(bytes)
        let type = try r.readUInt16()
        let nameAlg = try r.readUInt16()
        _ = try r.readUInt32() // objectAttributes
        _ = try r.read(Int(try r.readUInt16())) // authPolicy
        // symmetric: TPMT_SYM_DEF_OBJECT (algorithm, then keyBits and mode unless TPM_ALG_NULL).
        if try r.readUInt16() != TPMAlgorithm.null, symmetricDetails { try r.skip(4) }
        // scheme: algorithm, then its hash algorithm unless TPM_ALG_NULL.
        if try r.readUInt16() != TPMAlgorithm.null, schemeDetails { try r.skip(2) }
        let parameters: Parameters
        switch type {
        case TPMAlgorithm.rsa:
            let keyBits = try r.readUInt16()
            let exponent = try r.readUInt32()
            let modulus = try r.read(Int(try r.readUInt16()))
            parameters = .rsa(keyBits: keyBits, exponent: exponent, modulus: modulus)
        case TPMAlgorithm.ecc:
            let curve = try r.readUInt16()
            if try r.readUInt16() != TPMAlgorithm.null, schemeDetails { try r.skip(2) } // kdf
            let x = try r.read(Int(try r.readUInt16()))
            let y = try r.read(Int(try r.readUInt16()))
            parameters = .ecc(curve: curve, x: x, y: y)
        default:
            throw ByteReader.OutOfBytes(offset: 0, wanted: -1)
        }
        guard r.isAtEnd else { throw ByteReader.OutOfBytes(offset: r.position, wanted: -r.remaining) }
        return TPMPublicArea(type: type, nameAlg: nameAlg, parameters: parameters)
    }
}

/// TPMS_ATTEST for a TPM2_Certify: what the AIK signed.
struct TPMAttestation {
    static let generatedValue: UInt32 = 0xff54_4347
    static let attestCertify: UInt16 = 0x8017

    let magic: UInt32
    let type: UInt16
    let extraData: [UInt8]
    let attestedName: [UInt8]

    init(_ bytes: [UInt8]) throws(ByteReader.OutOfBytes) {
        var r = ByteReader(bytes)
        magic = try r.readUInt32()
        type = try r.readUInt16()
        _ = try r.read(Int(try r.readUInt16())) // qualifiedSigner
        extraData = try r.read(Int(try r.readUInt16()))
        try r.skip(17) // clockInfo: clock (8), resetCount (4), restartCount (4), safe (1)
        try r.skip(8) // firmwareVersion
        attestedName = try r.read(Int(try r.readUInt16()))
        _ = try r.read(Int(try r.readUInt16())) // attested qualifiedName
        guard r.isAtEnd else { throw ByteReader.OutOfBytes(offset: r.position, wanted: -r.remaining) }
    }
}
