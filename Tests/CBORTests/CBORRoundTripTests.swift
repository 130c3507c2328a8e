import Testing
@testable import CBOR

/// A small deterministic generator (SplitMix64) so that failures reproduce from the seed.
private struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9e37_79b9_7f4a_7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }
}

private func randomValue(_ rng: inout SplitMix64, depth: Int) -> CBORValue {
    let choice = Int.random(in: 0..<(depth >= 4 ? 8 : 11), using: &rng)
    switch choice {
    case 0: return .unsigned(UInt64.random(in: 0...UInt64.max, using: &rng) >> UInt64.random(in: 0...63, using: &rng))
    case 1: return .negative(UInt64.random(in: 0...UInt64.max, using: &rng) >> UInt64.random(in: 0...63, using: &rng))
    case 2: return .bytes((0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })
    case 3:
        let scalars = (0..<Int.random(in: 0...12, using: &rng)).compactMap { _ in
            Unicode.Scalar(UInt32.random(in: 0x20...0x2fff, using: &rng))
        }
        return .text(String(String.UnicodeScalarView(scalars)))
    case 4: return [CBORValue.bool(true), .bool(false), .null, .undefined][Int.random(in: 0...3, using: &rng)]
    case 5: return .simple(UInt8.random(in: 32...255, using: &rng))
    case 6:
        let d = Double(Int.random(in: -100_000...100_000, using: &rng)) / Double([1, 2, 4, 10, 3][Int.random(in: 0...4, using: &rng)])
        return .float(d)
    case 7: return .simple(UInt8.random(in: 0...19, using: &rng))
    case 8: return .array((0..<Int.random(in: 0...5, using: &rng)).map { _ in randomValue(&rng, depth: depth + 1) })
    case 9:
        var map = CBORMap()
        for _ in 0..<Int.random(in: 0...5, using: &rng) {
            map.insert(randomValue(&rng, depth: depth + 1), for: randomValue(&rng, depth: 4))
        }
        return .map(map)
    default: return .tagged(UInt64.random(in: 0...1000, using: &rng), randomValue(&rng, depth: depth + 1))
    }
}

/// Maps compare by content: the decoder gives canonical order, the generator insertion order.
private func normalized(_ value: CBORValue) -> CBORValue {
    switch value {
    case .array(let items): return .array(items.map(normalized))
    case .tagged(let tag, let inner): return .tagged(tag, normalized(inner))
    case .map(let map):
        let sorted = map.entries
            .map { (key: normalized($0.key), value: normalized($0.value)) }
            .sorted { CBOREncoder.canonicalOrder(CBOREncoder().encode($0.key), CBOREncoder().encode($1.key)) }
        var out = CBORMap()
        for entry in sorted { out.insert(entry.value, for: entry.key) }
        return .map(out)
    default: return value
    }
}

@Suite("CBOR round trips")
struct CBORRoundTripTests {
    @Test("encode then decode gives the same value, and re-encoding is byte-identical", arguments: 0..<8)
    func roundTrip(seed: UInt64) throws {
        var rng = SplitMix64(state: seed &* 7919 &+ 1)
        for _ in 0..<250 {
            let value = randomValue(&rng, depth: 0)
            let encoded = CBOREncoder().encode(value)
            let decoded = try CBORDecoder().decode(encoded)
            #expect(normalized(decoded) == normalized(value))
            #expect(CBOREncoder().encode(decoded) == encoded)
        }
    }
}
