import Testing
@testable import LatchkeyServer

@Suite("Random bytes")
struct RandomBytesTests {
    @Test("the requested length, also past the 256 bytes one system call is sure to fill, and no two draws alike")
    func lengthsAndUniqueness() {
        for count in [0, 1, 16, 28, 32, 64, 300] {
            #expect(RandomBytes.make(count).count == count)
        }
        let draws = (0..<1000).map { _ in RandomBytes.make(32) }
        #expect(Set(draws).count == draws.count)
        // Every byte value turns up in 32 000 random bytes (a stuck or narrow generator would miss many).
        #expect(Set(draws.joined()).count == 256)
    }
}
