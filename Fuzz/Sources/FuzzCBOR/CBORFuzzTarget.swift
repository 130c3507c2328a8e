import CBOR
import FuzzSupport

/// The CBOR decoder on arbitrary bytes, plus the codec's round-trip properties: whatever decodes has a
/// canonical encoding that decodes again (within the same limits) to a value with the same encoding,
/// and `decodePrefix` agrees with `decode` about where the item ends.
enum CBORFuzzTarget {
    static func run(_ bytes: [UInt8]) {
        let decoder = CBORDecoder()
        let prefix = try? decoder.decodePrefix(bytes)
        let value: CBORValue
        do {
            value = try decoder.decode(bytes)
        } catch {
            // Refused whole: then either no item could be read, or it left bytes behind.
            if let prefix { fuzzCheck(prefix.bytesUsed < bytes.count, "decode refused what decodePrefix read entirely: \(error)") }
            return
        }
        fuzzCheck(prefix?.bytesUsed == bytes.count, "decodePrefix and decode disagree on the item's end")

        let canonical = CBOREncoder().encode(value)
        let again: CBORValue
        do {
            again = try decoder.decode(canonical)
        } catch {
            fuzzCheck(false, "the canonical encoding of a decoded value does not decode: \(error)")
            return
        }
        fuzzCheck(CBOREncoder().encode(again) == canonical, "canonical encoding is not stable across a round trip")
        fuzzCheck(sameValue(value, again), "the round trip changed the value")
    }

    /// Equality up to what canonical encoding may change: map entry order, and NaN payloads.
    private static func sameValue(_ a: CBORValue, _ b: CBORValue) -> Bool {
        switch (a, b) {
        case (.float(let x), .float(let y)): return x.isNaN ? y.isNaN : x.bitPattern == y.bitPattern
        case (.array(let xs), .array(let ys)): return xs.count == ys.count && zip(xs, ys).allSatisfy(sameValue)
        case (.tagged(let t, let x), .tagged(let u, let y)): return t == u && sameValue(x, y)
        case (.map(let m), .map(let n)):
            guard m.count == n.count else { return false }
            let sortedM = sortedEntries(m), sortedN = sortedEntries(n)
            return zip(sortedM, sortedN).allSatisfy { sameValue($0.key, $1.key) && sameValue($0.value, $1.value) }
        default: return a == b
        }
    }

    private static func sortedEntries(_ map: CBORMap) -> [CBORMap.Entry] {
        map.entries.sorted { CBOREncoder().encode($0.key).lexicographicallyPrecedes(CBOREncoder().encode($1.key)) }
    }
}
