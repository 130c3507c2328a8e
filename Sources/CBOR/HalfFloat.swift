/// IEEE 754 binary16 conversions, written out because `Float16` is not available on every platform.
enum HalfFloat {
    static func double(fromBits bits: UInt16) -> Double {
        let sign: Double = bits & 0x8000 != 0 ? -1 : 1
        let exponent = Int((bits >> 10) & 0x1f)
        let fraction = Double(bits & 0x3ff)
        switch exponent {
        case 0: return sign * fraction * 0x1p-24
        case 31: return fraction == 0 ? sign * .infinity : .nan
        default: return sign * (1 + fraction / 1024) * Double(sign: .plus, exponent: exponent - 15, significand: 1)
        }
    }

    /// The binary16 bits of `value` when the conversion is exact; nil otherwise.
    static func bits(exactly value: Double) -> UInt16? {
        if value.isNaN { return 0x7e00 }
        let signBit: UInt16 = value.sign == .minus ? 0x8000 : 0
        if value.isInfinite { return signBit | 0x7c00 }
        let magnitude = abs(value)
        if magnitude == 0 { return signBit }
        // Subnormal halves: multiples of 2^-24 below 2^-14.
        if magnitude < 0x1p-14 {
            let scaled = magnitude * 0x1p24
            guard scaled == scaled.rounded(), scaled < 1024 else { return nil }
            return signBit | UInt16(scaled)
        }
        let exponent = Int(magnitude.exponent)
        guard exponent <= 15 else { return nil }
        let significand = magnitude.significand // in [1, 2)
        let fraction = (significand - 1) * 1024
        guard fraction == fraction.rounded() else { return nil }
        return signBit | UInt16(exponent + 15) << 10 | UInt16(fraction)
    }
}
