/// Reed–Solomon error correction over GF(256) with the QR code's field polynomial x⁸+x⁴+x³+x²+1 (0x11D)
/// and generator roots α⁰…αⁿ⁻¹ (ISO/IEC 18004 §7.5.2): the codewords a damaged symbol is read back from.
enum QRReedSolomon {
    /// The generator polynomial of `degree`, its leading 1 left out, highest power first.
    static func divisor(degree: Int) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: degree)
        result[degree - 1] = 1
        var root: UInt8 = 1
        for _ in 0..<degree {
            for j in 0..<degree {
                result[j] = multiply(result[j], root)
                if j + 1 < degree { result[j] ^= result[j + 1] }
            }
            root = multiply(root, 0x02)
        }
        return result
    }

    /// The remainder of `data` (as a polynomial, times xⁿ) divided by `divisor`: the block's error
    /// correction codewords.
    static func remainder(_ data: [UInt8], divisor: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: divisor.count)
        for byte in data {
            let factor = byte ^ result[0]
            result.removeFirst()
            result.append(0)
            for i in result.indices { result[i] ^= multiply(divisor[i], factor) }
        }
        return result
    }

    /// Multiplication in GF(256) modulo 0x11D, bit by bit (a few thousand per symbol: no tables needed).
    static func multiply(_ x: UInt8, _ y: UInt8) -> UInt8 {
        var z = 0
        for i in stride(from: 7, through: 0, by: -1) {
            z = (z << 1) ^ ((z >> 7) * 0x11D)
            z ^= Int((y >> UInt8(i)) & 1) * Int(x)
        }
        return UInt8(z)
    }
}
