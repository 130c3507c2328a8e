/// The few DER encodings the library has to produce itself (an RSA public key from COSE `n` and `e`).
enum DERWriter {
    static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var n = count
        while n > 0 {
            bytes.insert(UInt8(n & 0xff), at: 0)
            n >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    /// A non-negative INTEGER from big-endian magnitude bytes: leading zeros stripped, one added back
    /// when the top bit is set.
    static func unsignedInteger(_ magnitude: [UInt8]) -> [UInt8] {
        var content = Array(magnitude.drop(while: { $0 == 0 }))
        if content.isEmpty || content[0] & 0x80 != 0 { content.insert(0, at: 0) }
        return [0x02] + length(content.count) + content
    }

    static func sequence(_ children: [[UInt8]]) -> [UInt8] {
        let content = children.flatMap { $0 }
        return [0x30] + length(content.count) + content
    }
}
