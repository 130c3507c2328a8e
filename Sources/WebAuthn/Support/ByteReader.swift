/// A cursor over binary input that cannot read past the end: every read checks what remains and
/// throws `unexpectedEnd` instead of trapping, so lengths taken from the input are always safe to use.
struct ByteReader {
    struct OutOfBytes: Error {
        let offset: Int
        let wanted: Int
    }

    let bytes: [UInt8]
    private(set) var position: Int = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    var remaining: Int { bytes.count - position }
    var isAtEnd: Bool { position == bytes.count }

    mutating func read(_ count: Int) throws(OutOfBytes) -> [UInt8] {
        guard count >= 0, count <= remaining else { throw OutOfBytes(offset: position, wanted: count) }
        defer { position += count }
        return [UInt8](copying: bytes, from: position, count: count)
    }

    mutating func readUInt8() throws(OutOfBytes) -> UInt8 {
        guard remaining >= 1 else { throw OutOfBytes(offset: position, wanted: 1) }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func readUInt16() throws(OutOfBytes) -> UInt16 {
        guard remaining >= 2 else { throw OutOfBytes(offset: position, wanted: 2) }
        defer { position += 2 }
        return UInt16(bytes[position]) << 8 | UInt16(bytes[position + 1])
    }

    mutating func readUInt32() throws(OutOfBytes) -> UInt32 {
        guard remaining >= 4 else { throw OutOfBytes(offset: position, wanted: 4) }
        defer { position += 4 }
        return UInt32(bytes[position]) << 24 | UInt32(bytes[position + 1]) << 16 | UInt32(bytes[position + 2]) << 8 | UInt32(bytes[position + 3])
    }

    /// The bytes not yet read, without consuming them.
    func peekRest() -> [UInt8] {
        [UInt8](copying: bytes, from: position, count: bytes.count - position)
    }

    mutating func skip(_ count: Int) throws(OutOfBytes) {
        guard count >= 0, count <= remaining else { throw OutOfBytes(offset: position, wanted: count) }
        position += count
    }
}
