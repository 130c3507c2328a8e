/// Byte comparison whose running time does not depend on where the inputs differ, for secrets and for
/// values an attacker may probe (challenges, hashes). The package's one such comparison: `package`, so
/// that LatchkeyServer compares its secrets (the introspection secret's digest) with it too, rather than
/// with a loop of its own.
package enum ConstantTime {
    package static func equal<A: Collection, B: Collection>(_ a: A, _ b: B) -> Bool
    where A.Element == UInt8, B.Element == UInt8 {
        guard a.count == b.count else { return false }
        // Arrays, slices and digests' bytes are contiguous: compared through their buffers, with no iterator
        // (a debug build's unspecialized `zip` allocated for every byte: the counts gate's login spent 140
        // allocations here).
        if let result = a.withContiguousStorageIfAvailable({ x in b.withContiguousStorageIfAvailable { y in equal(x, y) } }),
           let result {
            return result
        }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }

    /// Two buffers of the same length, every byte looked at whatever the first difference.
    private static func equal(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let xs = x.baseAddress, let ys = y.baseAddress else { return x.count == y.count }
        var difference: UInt8 = 0
        var index = 0
        while index < x.count {
            difference |= xs[index] ^ ys[index]
            index += 1
        }
        return difference == 0
    }
}
