import Testing
@testable import WebAuthn

@Suite("base64url")
struct Base64URLTests {
    @Test("RFC 4648 test vectors, emitted without padding")
    func encode() {
        let cases: [(String, String)] = [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE"), ("foobar", "Zm9vYmFy")]
        for (plain, encoded) in cases {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
            #expect(Base64URL.decode(encoded) == Array(plain.utf8))
        }
        #expect(Base64URL.encode([0xfb, 0xff]) == "-_8")
    }

    @Test("padding is accepted on input")
    func padding() {
        #expect(Base64URL.decode("Zg==") == Array("f".utf8))
        #expect(Base64URL.decode("Zm8=") == Array("fo".utf8))
    }

    @Test("standard alphabet, whitespace, bad lengths, misplaced padding and non-zero spare bits are refused",
          arguments: ["+/8", "Zm9v\n", "Z", "Zg=", "Zg===", "=Zg", "Zh", "Zm9=v", "Zm9vYmFy=", "é"])
    func rejects(input: String) {
        #expect(Base64URL.decode(input) == nil)
    }

    @Test("round trip over every length up to 64")
    func roundTrip() {
        for length in 0...64 {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            #expect(Base64URL.decode(Base64URL.encode(bytes)) == bytes)
        }
    }
}
