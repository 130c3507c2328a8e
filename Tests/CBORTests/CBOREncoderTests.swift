import Testing
@testable import CBOR

@Suite("CBOR encoder")
struct CBOREncoderTests {
    @Test("integers, lengths and tags use the shortest form")
    func shortestForms() {
        let e = CBOREncoder()
        #expect(e.encode(.unsigned(23)) == [0x17])
        #expect(e.encode(.unsigned(24)) == [0x18, 24])
        #expect(e.encode(.unsigned(255)) == [0x18, 0xff])
        #expect(e.encode(.unsigned(256)) == [0x19, 0x01, 0x00])
        #expect(e.encode(.unsigned(65536)) == [0x1a, 0, 1, 0, 0])
        #expect(e.encode(.unsigned(1 << 32)) == [0x1b, 0, 0, 0, 1, 0, 0, 0, 0])
        #expect(e.encode(.int(-1)) == [0x20])
        #expect(e.encode(.int(-257)) == [0x39, 0x01, 0x00])
        #expect(e.encode(.bytes([UInt8](repeating: 7, count: 24))).prefix(2) == [0x58, 24])
        #expect(e.encode(.tagged(24, .null)) == [0xd8, 24, 0xf6])
    }

    @Test("map keys in CTAP2 canonical order: major type, then length, then bytes")
    func canonicalMapOrder() throws {
        // A COSE EC2 key given in a scrambled order.
        let map = try #require(CBORMap([
            (.int(-3), .bytes([3])), (.int(1), .unsigned(2)), (.int(-1), .unsigned(1)),
            (.int(3), .int(-7)), (.int(-2), .bytes([2])),
        ]))
        let encoded = CBOREncoder().encode(.map(map))
        #expect(encoded == [0xa5, 0x01, 0x02, 0x03, 0x26, 0x20, 0x01, 0x21, 0x41, 0x02, 0x22, 0x41, 0x03])
        let mixed = try #require(CBORMap([
            (.text("bb"), .null), (.text("a"), .null), (.unsigned(100), .null), (.unsigned(1), .null), (.bytes([0]), .null),
        ]))
        let keys = try CBORDecoder().decode(CBOREncoder().encode(.map(mixed))).mapValue?.keys
        #expect(keys == [.unsigned(1), .unsigned(100), .bytes([0]), .text("a"), .text("bb")])
    }

    @Test("floats use the shortest exact width")
    func floats() {
        #expect(CBOREncoder().encode(.float(1.0)) == [0xf9, 0x3c, 0x00])
        #expect(CBOREncoder().encode(.float(100000.0)) == [0xfa, 0x47, 0xc3, 0x50, 0x00])
        #expect(CBOREncoder().encode(.float(1.1)) == [0xfb, 0x3f, 0xf1, 0x99, 0x99, 0x99, 0x99, 0x99, 0x9a])
        #expect(CBOREncoder().encode(.float(5.960464477539063e-8)) == [0xf9, 0x00, 0x01])
    }

    @Test("CBORMap refuses duplicate keys")
    func duplicateKeys() {
        #expect(CBORMap([(.unsigned(1), .null), (.unsigned(1), .null)]) == nil)
        var map = CBORMap()
        let first = map.insert(.null, for: .text("k"))
        let second = map.insert(.bool(true), for: .text("k"))
        #expect(first)
        #expect(!second)
        #expect(map[text: "k"] == .null)
    }
}
