/// The penalty of a masked symbol (ISO/IEC 18004 §7.8.3, Table 11), lowest wins: runs of five or more
/// modules of one colour in a row or column (3 + the run's excess), 2×2 blocks of one colour (3 each),
/// the finder's 1:1:3:1:1 pattern with four light modules on one side (40 each), and the dark proportion's
/// distance from half (10 per 5 %). Encoders read the standard's N3 rule differently (the symbol's edge as
/// light or not, the format information drawn or not); this counts as python-qrcode does, so that both
/// choose the same mask, which `QRCodeTests` checks.
enum QRPenalty {
    static func score(_ matrix: QRMatrix) -> Int {
        let size = matrix.size
        var total = 0
        var darkCount = 0
        var row = [Bool](repeating: false, count: size)
        var column = [Bool](repeating: false, count: size)
        for i in 0..<size {
            for j in 0..<size {
                row[j] = matrix.dark[i * size + j]
                column[j] = matrix.dark[j * size + i]
                if row[j] { darkCount += 1 }
                if i > 0, j > 0 {
                    let here = row[j]
                    if here == row[j - 1], here == matrix.dark[(i - 1) * size + j], here == matrix.dark[(i - 1) * size + j - 1] { total += 3 }
                }
            }
            total += runs(row) + runs(column) + finderLike(row) + finderLike(column)
        }
        let cells = size * size
        total += 10 * (abs(20 * darkCount - 10 * cells) / cells)
        return total
    }

    /// N1 of one line.
    private static func runs(_ line: [Bool]) -> Int {
        var score = 0
        var length = 1
        for j in 1..<line.count {
            if line[j] == line[j - 1] {
                length += 1
            } else {
                if length >= 5 { score += length - 2 }
                length = 1
            }
        }
        if length >= 5 { score += length - 2 }
        return score
    }

    /// N3 of one line: each place where dark light dark dark dark light dark has four light modules after
    /// it (10111010000) or before it (00001011101), the eleven modules inside the symbol.
    private static func finderLike(_ line: [Bool]) -> Int {
        let after: [Bool] = [true, false, true, true, true, false, true, false, false, false, false]
        let before = Array(after.reversed())
        guard line.count >= 11 else { return 0 }
        var score = 0
        for start in 0...(line.count - 11) {
            let window = line[start..<start + 11]
            if window.elementsEqual(after) || window.elementsEqual(before) { score += 40 }
        }
        return score
    }
}
