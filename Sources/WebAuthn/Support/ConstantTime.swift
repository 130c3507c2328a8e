/// Byte comparison whose running time does not depend on where the inputs differ, for secrets and for
/// values an attacker may probe (challenges, hashes). The package's one such comparison: `package`, so
/// that LatchkeyServer compares its secrets (the introspection secret's digest) with it too, rather than
/// with a loop of its own.
package enum ConstantTime {
    package static func equal<A: Collection, B: Collection>(_ a: A, _ b: B) -> Bool
    where A.Element == UInt8, B.Element == UInt8 {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
