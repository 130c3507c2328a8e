/// A symbol's modules while it is drawn (ISO/IEC 18004 §6.3): the function patterns first — finders with
/// their separators, timing, alignment patterns, the dark module, room for the format and version
/// information — then the codewords in the two-column zigzag from the bottom right, then a mask over
/// everything that is not a function pattern, then the format and version information for that mask.
struct QRMatrix: Sendable {
    let size: Int
    let version: Int
    /// Row by row, `size` × `size`.
    var dark: [Bool]
    /// The function patterns' modules, which the data and the mask leave alone.
    private var function: [Bool]

    init(version: Int) {
        self.version = version
        size = 17 + 4 * version
        dark = Array(repeating: false, count: size * size)
        function = Array(repeating: false, count: size * size)
        for i in 0..<size {
            set(x: 6, y: i, dark: i % 2 == 0)
            set(x: i, y: 6, dark: i % 2 == 0)
        }
        drawFinder(x: 3, y: 3)
        drawFinder(x: size - 4, y: 3)
        drawFinder(x: 3, y: size - 4)
        let centres = QRVersionTable.alignmentCentres[version - 1]
        for (i, y) in centres.enumerated() {
            for (j, x) in centres.enumerated() {
                // Not over the three finders.
                let last = centres.count - 1
                if (i == 0 && j == 0) || (i == 0 && j == last) || (i == last && j == 0) { continue }
                drawAlignment(x: x, y: y)
            }
        }
        // Reserved, light, until the mask is chosen: the format information (with the dark module) and,
        // from version 7, the version information (`drawInformation`).
        reserveFormat()
        if version >= 7 {
            for i in 0..<18 {
                set(x: size - 11 + i % 3, y: i / 3, dark: false)
                set(x: i / 3, y: size - 11 + i % 3, dark: false)
            }
        }
    }

    /// The codewords' bits, most significant first, up and down the column pairs from the right, the
    /// vertical timing column skipped. Modules left over (the remainder bits) stay light.
    mutating func place(_ codewords: [UInt8]) {
        var bit = 0
        let total = codewords.count * 8
        var right = size - 1
        while right >= 1 {
            if right == 6 { right = 5 }
            for vertical in 0..<size {
                for j in 0..<2 {
                    let x = right - j
                    let upward = (right + 1) & 2 == 0
                    let y = upward ? size - 1 - vertical : vertical
                    let index = y * size + x
                    guard !function[index], bit < total else { continue }
                    dark[index] = (codewords[bit >> 3] >> (7 - UInt8(bit & 7))) & 1 == 1
                    bit += 1
                }
            }
            right -= 2
        }
    }

    /// Inverts the modules outside the function patterns where `mask`'s condition holds (§7.8.2).
    mutating func apply(mask: Int) {
        for y in 0..<size {
            for x in 0..<size where !function[y * size + x] && Self.masked(mask, x: x, y: y) {
                dark[y * size + x].toggle()
            }
        }
    }

    static func masked(_ mask: Int, x: Int, y: Int) -> Bool {
        switch mask {
        case 0: (x + y) % 2 == 0
        case 1: y % 2 == 0
        case 2: x % 3 == 0
        case 3: (x + y) % 3 == 0
        case 4: (x / 3 + y / 2) % 2 == 0
        case 5: x * y % 2 + x * y % 3 == 0
        case 6: (x * y % 2 + x * y % 3) % 2 == 0
        default: ((x + y) % 2 + x * y % 3) % 2 == 0
        }
    }

    /// The format information for `correction` and `mask`, and the version information: what the
    /// reserved modules hold once the mask is chosen.
    mutating func drawInformation(correction: QRErrorCorrection, mask: Int) {
        let data = correction.formatBits << 3 | mask
        var remainder = data
        for _ in 0..<10 { remainder = (remainder << 1) ^ ((remainder >> 9) * 0x537) }
        drawFormat(bits: (data << 10 | remainder) ^ 0x5412)
        set(x: 8, y: size - 8, dark: true)
        drawVersion()
    }

    private mutating func reserveFormat() {
        drawFormat(bits: 0)
        set(x: 8, y: size - 8, dark: false)
    }

    /// Both copies of the format information (the level and the mask as 5 bits with their BCH(15,5) code,
    /// XORed with 101010000010010, §7.9.1): around the top left finder, and split between the other two.
    private mutating func drawFormat(bits: Int) {
        func bit(_ i: Int) -> Bool { (bits >> i) & 1 == 1 }
        for i in 0...5 { set(x: 8, y: i, dark: bit(i)) }
        set(x: 8, y: 7, dark: bit(6))
        set(x: 8, y: 8, dark: bit(7))
        set(x: 7, y: 8, dark: bit(8))
        for i in 9..<15 { set(x: 14 - i, y: 8, dark: bit(i)) }
        for i in 0..<8 { set(x: size - 1 - i, y: 8, dark: bit(i)) }
        for i in 8..<15 { set(x: 8, y: size - 15 + i, dark: bit(i)) }
    }

    /// From version 7: the version with its BCH(18,6) code, in a 6×3 block beside each of the two finders
    /// away from the top left (§7.10).
    private mutating func drawVersion() {
        guard version >= 7 else { return }
        var remainder = version
        for _ in 0..<12 { remainder = (remainder << 1) ^ ((remainder >> 11) * 0x1F25) }
        let bits = version << 12 | remainder
        for i in 0..<18 {
            let on = (bits >> i) & 1 == 1
            let a = size - 11 + i % 3
            let b = i / 3
            set(x: a, y: b, dark: on)
            set(x: b, y: a, dark: on)
        }
    }

    /// A 7×7 finder centred on (x, y), with its light separator where it lies inside the symbol.
    private mutating func drawFinder(x: Int, y: Int) {
        for dy in -4...4 {
            for dx in -4...4 {
                let distance = max(abs(dx), abs(dy))
                let (cx, cy) = (x + dx, y + dy)
                guard (0..<size).contains(cx), (0..<size).contains(cy) else { continue }
                set(x: cx, y: cy, dark: distance != 2 && distance != 4)
            }
        }
    }

    /// A 5×5 alignment pattern centred on (x, y).
    private mutating func drawAlignment(x: Int, y: Int) {
        for dy in -2...2 {
            for dx in -2...2 { set(x: x + dx, y: y + dy, dark: max(abs(dx), abs(dy)) != 1) }
        }
    }

    private mutating func set(x: Int, y: Int, dark on: Bool) {
        dark[y * size + x] = on
        function[y * size + x] = true
    }
}
