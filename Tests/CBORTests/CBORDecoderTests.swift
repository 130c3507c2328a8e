import Testing
@testable import CBOR

private func hex(_ s: String) -> [UInt8] {
    var out: [UInt8] = []
    var chars = Array(s.filter { !$0.isWhitespace })
    while chars.count >= 2 {
        out.append(UInt8(String(chars[0...1]), radix: 16)!)
        chars.removeFirst(2)
    }
    return out
}

private func decodeError(_ bytes: [UInt8], limits: CBORDecoder.Limits = .init()) -> CBORError? {
    do {
        _ = try CBORDecoder(limits: limits).decode(bytes)
        return nil
    } catch {
        return error
    }
}

@Suite("CBOR decoder")
struct CBORDecoderTests {
    @Test("unsigned integers over the full 64-bit range, in every width")
    func unsignedIntegers() throws {
        #expect(try CBORDecoder().decode(hex("00")) == .unsigned(0))
        #expect(try CBORDecoder().decode(hex("17")) == .unsigned(23))
        #expect(try CBORDecoder().decode(hex("1818")) == .unsigned(24))
        #expect(try CBORDecoder().decode(hex("190100")) == .unsigned(256))
        #expect(try CBORDecoder().decode(hex("1a00010000")) == .unsigned(65536))
        #expect(try CBORDecoder().decode(hex("1bffffffffffffffff")) == .unsigned(UInt64.max))
        #expect(CBORValue.unsigned(UInt64.max).int64Value == nil, "no silent wrap past Int64.max")
    }

    @Test("negative integers down to -2^64 without overflow")
    func negativeIntegers() throws {
        #expect(try CBORDecoder().decode(hex("20")).int64Value == -1)
        #expect(try CBORDecoder().decode(hex("3863")).int64Value == -100)
        let min = try CBORDecoder().decode(hex("3b7fffffffffffffff"))
        #expect(min.int64Value == Int64.min)
        let beyond = try CBORDecoder().decode(hex("3bffffffffffffffff"))
        #expect(beyond == .negative(UInt64.max))
        #expect(beyond.int64Value == nil)
    }

    @Test("byte and text strings; text must be UTF-8")
    func strings() throws {
        #expect(try CBORDecoder().decode(hex("4401020304")) == .bytes([1, 2, 3, 4]))
        #expect(try CBORDecoder().decode(hex("6449455446")) == .text("IETF"))
        #expect(try CBORDecoder().decode(hex("62c3bc")) == .text("ü"))
        let error = decodeError(hex("62c328"))
        #expect(error?.kind == .invalidUTF8)
        #expect(error?.offset == 0)
    }

    @Test("arrays, maps, tags and simple values")
    func structures() throws {
        #expect(try CBORDecoder().decode(hex("83010203")) == .array([.unsigned(1), .unsigned(2), .unsigned(3)]))
        let map = try CBORDecoder().decode(hex("a26161016162820203"))
        #expect(map.mapValue?[text: "a"] == .unsigned(1))
        #expect(map.mapValue?[text: "b"] == .array([.unsigned(2), .unsigned(3)]))
        #expect(try CBORDecoder().decode(hex("c11a514b67b0")) == .tagged(1, .unsigned(1_363_896_240)))
        #expect(try CBORDecoder().decode(hex("f4")) == .bool(false))
        #expect(try CBORDecoder().decode(hex("f5")) == .bool(true))
        #expect(try CBORDecoder().decode(hex("f6")) == .null)
        #expect(try CBORDecoder().decode(hex("f7")) == .undefined)
        #expect(try CBORDecoder().decode(hex("f0")) == .simple(16))
        #expect(try CBORDecoder().decode(hex("f8ff")) == .simple(255))
        #expect(decodeError(hex("f818"))?.kind == .invalidSimpleValue(24))
    }

    @Test("half, single and double floats")
    func floats() throws {
        #expect(try CBORDecoder().decode(hex("f93c00")) == .float(1.0))
        #expect(try CBORDecoder().decode(hex("f97bff")) == .float(65504.0))
        #expect(try CBORDecoder().decode(hex("f90001")) == .float(5.960464477539063e-8))
        #expect(try CBORDecoder().decode(hex("f9c400")) == .float(-4.0))
        #expect(try CBORDecoder().decode(hex("f97c00")) == .float(.infinity))
        #expect(try CBORDecoder().decode(hex("fa47c35000")) == .float(100000.0))
        #expect(try CBORDecoder().decode(hex("fb3ff199999999999a")) == .float(1.1))
        guard case .float(let nan) = try CBORDecoder().decode(hex("f97e00")) else {
            Issue.record("NaN did not decode as a float")
            return
        }
        #expect(nan.isNaN)
    }

    @Test("indefinite-length strings, arrays and maps are decoded")
    func indefiniteLengths() throws {
        #expect(try CBORDecoder().decode(hex("5f42010243030405ff")) == .bytes([1, 2, 3, 4, 5]))
        #expect(try CBORDecoder().decode(hex("7f657374726561646d696e67ff")) == .text("streaming"))
        #expect(try CBORDecoder().decode(hex("9f018202039f0405ffff")) ==
            .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])]))
        let map = try CBORDecoder().decode(hex("bf61610161629f0203ffff"))
        #expect(map.mapValue?.count == 2)
        // A chunk of the wrong major type inside an indefinite byte string.
        #expect(decodeError(hex("5f6161ff"))?.kind == .invalidIndefiniteChunk)
        // Nested indefinite chunks are not allowed.
        #expect(decodeError(hex("5f5f4101ffff"))?.kind == .invalidIndefiniteChunk)
        // Missing break.
        #expect(decodeError(hex("9f0102"))?.kind == .unexpectedEnd)
        // Indefinite-length integers and tags are not well-formed.
        #expect(decodeError(hex("1f"))?.kind == .indefiniteLengthNotAllowed(majorType: 0))
        #expect(decodeError(hex("df01"))?.kind == .indefiniteLengthNotAllowed(majorType: 6))
    }

    @Test("duplicate map keys are rejected with the offset of the repeated key")
    func duplicateKeys() {
        let error = decodeError(hex("a2616101616102"))
        #expect(error?.kind == .duplicateMapKey)
        #expect(error?.offset == 4)
        #expect(decodeError(hex("bf0101 0102 ff"))?.kind == .duplicateMapKey)
    }

    @Test("declared lengths beyond the input fail before anything is allocated")
    func oversizedLengths() {
        let bytes = decodeError(hex("5bffffffffffffffff00"))
        #expect(bytes?.kind == .lengthExceedsInput(declared: UInt64.max, remaining: 1))
        #expect(bytes?.offset == 0)
        #expect(decodeError(hex("9b00000000ffffffff"))?.kind == .lengthExceedsInput(declared: 0xffff_ffff, remaining: 0))
        #expect(decodeError(hex("ba7fffffff0102"))?.kind == .lengthExceedsInput(declared: 0x7fff_ffff, remaining: 2))
        #expect(decodeError(hex("83 01 02"))?.kind == .lengthExceedsInput(declared: 3, remaining: 2))
        #expect(decodeError(hex("82 19 01"))?.kind == .unexpectedEnd)
        #expect(decodeError(hex("1a0001"))?.kind == .unexpectedEnd)
    }

    /// A map of `count` distinct two-byte unsigned keys (0x19 NNNN), each with the value 0.
    private static func map(count: Int, indefinite: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = indefinite ? [0xbf] : [0xb9, UInt8(count >> 8), UInt8(count & 0xff)]
        for key in 0..<count { bytes += [0x19, UInt8(key >> 8), UInt8(key & 0xff), 0x00] }
        return indefinite ? bytes + [0xff] : bytes
    }

    @Test("arrays and maps hold at most 32 members (SECURITY-FINDINGS 5: an 11 000-key map took over a second)")
    func containerCap() {
        // The finding's shape: 11 000 keys, definite and indefinite.
        #expect(decodeError(Self.map(count: 11_000))?.kind == .containerTooLarge(limit: 32))
        #expect(decodeError(Self.map(count: 11_000, indefinite: true))?.kind == .containerTooLarge(limit: 32))
        #expect(decodeError(Self.map(count: 32)) == nil)
        #expect(decodeError(Self.map(count: 33))?.kind == .containerTooLarge(limit: 32))
        #expect(decodeError(Self.map(count: 33, indefinite: true))?.kind == .containerTooLarge(limit: 32))
        let array = [0x98, 33] + [UInt8](repeating: 0x00, count: 33)
        #expect(decodeError(array)?.kind == .containerTooLarge(limit: 32))
        #expect(decodeError([0x9f] + [UInt8](repeating: 0x00, count: 33) + [0xff])?.kind == .containerTooLarge(limit: 32))
        #expect(decodeError([0x98, 32] + [UInt8](repeating: 0x00, count: 32)) == nil)
        // The limit is a setting: a caller that needs a big map can have one, still checked for duplicates.
        #expect(decodeError(Self.map(count: 11_000), limits: .init(maxContainerCount: 20_000)) == nil)
        let duplicated = Self.map(count: 11_000).dropLast(4) + [0x19, 0x00, 0x07, 0x00]
        let error = decodeError(Array(duplicated), limits: .init(maxContainerCount: 20_000))
        #expect(error?.kind == .duplicateMapKey)
        #expect(error?.offset == 3 + 10_999 * 4, "the offset of the repeated key")
    }

    @Test("nesting deeper than the limit is refused")
    func deepNesting() {
        let deep = [UInt8](repeating: 0x81, count: 10_000) + [0x00]
        let error = decodeError(deep)
        #expect(error?.kind == .depthLimitExceeded(limit: 16))
        #expect(error?.offset == 16)
        let tags = [UInt8](repeating: 0xc1, count: 100) + [0x00]
        #expect(decodeError(tags)?.kind == .depthLimitExceeded(limit: 16))
        #expect(decodeError([UInt8](repeating: 0x81, count: 4) + [0x00], limits: .init(maxDepth: 4)) == nil)
        #expect(decodeError([UInt8](repeating: 0x81, count: 5) + [0x00], limits: .init(maxDepth: 4)) != nil)
    }

    @Test("reserved additional information, stray breaks and trailing bytes")
    func illFormed() {
        #expect(decodeError(hex("1c"))?.kind == .reservedAdditionalInfo(28))
        #expect(decodeError(hex("ff"))?.kind == .unexpectedBreak)
        let trailing = decodeError(hex("0102"))
        #expect(trailing?.kind == .trailingBytes(count: 1))
        #expect(trailing?.offset == 1)
        #expect(decodeError([])?.kind == .unexpectedEnd)
        #expect(decodeError([0x00], limits: .init(maxInputSize: 0))?.kind == .inputTooLarge(limit: 0))
    }

    @Test("decodePrefix reports how many bytes the first item used")
    func prefix() throws {
        let (value, used) = try CBORDecoder().decodePrefix(hex("a201020304 ff ee"))
        #expect(value.mapValue?.count == 2)
        #expect(used == 5)
    }
}
