import Testing
@testable import WebAuthn

/// `ConstantTime.equal` compares contiguous collections through their buffers and anything else through
/// `zip`: both paths must agree with `==`.
@Suite("ConstantTime.equal")
struct ConstantTimeTests {
    static let cases: [([UInt8], [UInt8])] = [
        ([], []), ([1], [1]), ([1], [2]), ([1, 2, 3], [1, 2]), (Array(0...255), Array(0...255)),
        (Array(0...255), Array(0...254) + [0]), ([0] + Array(1...255), [1] + Array(1...255)),
    ]

    @Test("arrays, slices and a lazy collection: equal exactly when the bytes are")
    func agreesWithEquality() {
        for (a, b) in Self.cases {
            let expected = a == b
            #expect(ConstantTime.equal(a, b) == expected)
            #expect(ConstantTime.equal(a[...], b[...]) == expected)
            #expect(ConstantTime.equal([9] + a, [9] + b) == expected)
            #expect(ConstantTime.equal(([9] + a).dropFirst(), b) == expected, "a slice that does not start at 0")
            #expect(ConstantTime.equal(a.lazy.map { $0 }, b) == expected, "not contiguous: the zip path")
        }
    }
}
