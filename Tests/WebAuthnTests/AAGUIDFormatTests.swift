import Testing
import WebAuthn

@Suite("AAGUIDFormat.string")
struct AAGUIDFormatTests {
    @Test("16 bytes in 8-4-4-4-12 lowercase hex; other lengths as plain hex")
    func format() {
        #expect(AAGUIDFormat.string(Array(0...15)) == "00010203-0405-0607-0809-0a0b0c0d0e0f")
        #expect(AAGUIDFormat.string([UInt8](repeating: 0xFF, count: 16)) == "ffffffff-ffff-ffff-ffff-ffffffffffff")
        #expect(AAGUIDFormat.string([UInt8](repeating: 0, count: 16)) == "00000000-0000-0000-0000-000000000000")
        #expect(AAGUIDFormat.string([0xAB, 0x01]) == "ab01")
        #expect(AAGUIDFormat.string(Array(0...16)) == "000102030405060708090a0b0c0d0e0f10")
        #expect(AAGUIDFormat.string([]) == "")
    }
}
