/// The block structure of versions 1–10 (ISO/IEC 18004 Table 9): for each version and level, the error
/// correction codewords of each block and the data codewords of its blocks (short blocks first). Versions
/// up to 10 hold 213 bytes at medium correction: a sign-in address with its code needs about 60, and a
/// larger symbol is hard to scan off a terminal. `QRVersionTableTests` checks every row adds up to the
/// version's codewords, and the symbols against python-qrcode's.
struct QRVersionTable {
    struct Blocks {
        let errorCorrectionPerBlock: Int
        /// Data codewords of each block, in order.
        let dataPerBlock: [Int]

        var dataCodewords: Int { dataPerBlock.reduce(0, +) }
        var totalCodewords: Int { dataCodewords + errorCorrectionPerBlock * dataPerBlock.count }
    }

    static let largestVersion = 10

    /// Codewords (data and error correction) of each version, 1...10.
    static let totalCodewords = [26, 44, 70, 100, 134, 172, 196, 242, 292, 346]

    /// Centres of the alignment patterns' rows and columns, versions 2...10 (version 1 has none).
    static let alignmentCentres: [[Int]] = [
        [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34], [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50],
    ]

    static func blocks(version: Int, correction: QRErrorCorrection) -> Blocks {
        let row = rows[version - 1]
        let (ec, groups): (Int, [(Int, Int)]) = switch correction {
        case .low: row.low
        case .medium: row.medium
        case .quartile: row.quartile
        case .high: row.high
        }
        return Blocks(errorCorrectionPerBlock: ec, dataPerBlock: groups.flatMap { Array(repeating: $0.1, count: $0.0) })
    }

    /// (error correction codewords per block, [(blocks, data codewords each)]).
    private typealias Level = (Int, [(Int, Int)])
    private static let rows: [(low: Level, medium: Level, quartile: Level, high: Level)] = [
        ((7, [(1, 19)]), (10, [(1, 16)]), (13, [(1, 13)]), (17, [(1, 9)])),
        ((10, [(1, 34)]), (16, [(1, 28)]), (22, [(1, 22)]), (28, [(1, 16)])),
        ((15, [(1, 55)]), (26, [(1, 44)]), (18, [(2, 17)]), (22, [(2, 13)])),
        ((20, [(1, 80)]), (18, [(2, 32)]), (26, [(2, 24)]), (16, [(4, 9)])),
        ((26, [(1, 108)]), (24, [(2, 43)]), (18, [(2, 15), (2, 16)]), (22, [(2, 11), (2, 12)])),
        ((18, [(2, 68)]), (16, [(4, 27)]), (24, [(4, 19)]), (28, [(4, 15)])),
        ((20, [(2, 78)]), (18, [(4, 31)]), (18, [(2, 14), (4, 15)]), (26, [(4, 13), (1, 14)])),
        ((24, [(2, 97)]), (22, [(2, 38), (2, 39)]), (22, [(4, 18), (2, 19)]), (26, [(4, 14), (2, 15)])),
        ((30, [(2, 116)]), (22, [(3, 36), (2, 37)]), (20, [(4, 16), (4, 17)]), (24, [(4, 12), (4, 13)])),
        ((18, [(2, 68), (2, 69)]), (26, [(4, 43), (1, 44)]), (24, [(6, 19), (2, 20)]), (28, [(6, 15), (2, 16)])),
    ]
}
