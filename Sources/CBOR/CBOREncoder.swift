/// CTAP2-canonical CBOR encoder (CTAP 2.1 §8): integers, lengths and tags in their shortest form, definite
/// lengths only, map keys sorted by major type, then encoded length, then bytes. Floats use the shortest of
/// half, single and double precision that holds the value exactly.
public struct CBOREncoder: Sendable {
    public init() {}

    public func encode(_ value: CBORValue) -> [UInt8] {
        var out: [UInt8] = []
        append(value, to: &out)
        return out
    }

    private func append(_ value: CBORValue, to out: inout [UInt8]) {
        switch value {
        case .unsigned(let n): appendHead(major: 0, argument: n, to: &out)
        case .negative(let n): appendHead(major: 1, argument: n, to: &out)
        case .bytes(let b):
            appendHead(major: 2, argument: UInt64(b.count), to: &out)
            out += b
        case .text(let s):
            let utf8 = Array(s.utf8)
            appendHead(major: 3, argument: UInt64(utf8.count), to: &out)
            out += utf8
        case .array(let items):
            appendHead(major: 4, argument: UInt64(items.count), to: &out)
            for item in items { append(item, to: &out) }
        case .map(let map):
            appendHead(major: 5, argument: UInt64(map.count), to: &out)
            let encoded = map.entries.map { (key: encode($0.key), value: encode($0.value)) }
            for entry in encoded.sorted(by: { Self.canonicalOrder($0.key, $1.key) }) {
                out += entry.key
                out += entry.value
            }
        case .tagged(let tag, let inner):
            appendHead(major: 6, argument: tag, to: &out)
            append(inner, to: &out)
        case .bool(let b): out.append(b ? 0xf5 : 0xf4)
        case .null: out.append(0xf6)
        case .undefined: out.append(0xf7)
        case .simple(let v):
            if v < 24 { out.append(0xe0 | v) } else { out += [0xf8, v] }
        case .float(let d): appendFloat(d, to: &out)
        }
    }

    private func appendHead(major: UInt8, argument: UInt64, to out: inout [UInt8]) {
        let m = major << 5
        switch argument {
        case 0..<24: out.append(m | UInt8(argument))
        case 24...0xff: out += [m | 24, UInt8(argument)]
        case 0x100...0xffff: out.append(m | 25); appendBigEndian(argument, byteCount: 2, to: &out)
        case 0x10000...0xffff_ffff: out.append(m | 26); appendBigEndian(argument, byteCount: 4, to: &out)
        default: out.append(m | 27); appendBigEndian(argument, byteCount: 8, to: &out)
        }
    }

    private func appendBigEndian(_ value: UInt64, byteCount: Int, to out: inout [UInt8]) {
        for i in stride(from: byteCount - 1, through: 0, by: -1) {
            out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i))))
        }
    }

    private func appendFloat(_ d: Double, to out: inout [UInt8]) {
        if let half = HalfFloat.bits(exactly: d) {
            out.append(0xf9)
            appendBigEndian(UInt64(half), byteCount: 2, to: &out)
        } else if let single = Float(exactly: d) {
            out.append(0xfa)
            appendBigEndian(UInt64(single.bitPattern), byteCount: 4, to: &out)
        } else {
            out.append(0xfb)
            appendBigEndian(d.bitPattern, byteCount: 8, to: &out)
        }
    }

    /// CTAP2 canonical key order: lower major type first, then shorter encoding, then bytewise lower.
    static func canonicalOrder(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let (ma, mb) = (a.first.map { $0 >> 5 } ?? 0, b.first.map { $0 >> 5 } ?? 0)
        if ma != mb { return ma < mb }
        if a.count != b.count { return a.count < b.count }
        return a.lexicographicallyPrecedes(b)
    }
}
