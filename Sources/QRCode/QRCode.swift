/// A QR code (ISO/IEC 18004, model 2) holding bytes in byte mode, versions 1–10: what `latchkey login
/// --device` draws in the terminal so that a phone opens the sign-in address without typing it, and what
/// the admin console can show as an image. Written here because no package of the mirror has one; its
/// symbols are held to python-qrcode's, module for module (`QRCodeTests`, fixtures made by `make-fixtures.py`).
///
/// The smallest version that holds the bytes at the chosen correction is used, and of the eight masks the
/// one with the lowest penalty (§7.8.3, `QRPenalty`), unless a test asks for a particular one.
public struct QRCode: Sendable {
    /// Too many bytes for a version-10 symbol at this correction.
    public struct TooLong: Error, Sendable, CustomStringConvertible {
        public let bytes: Int
        public let capacity: Int
        public var description: String { "\(bytes) bytes do not fit a QR code (at most \(capacity) at this correction)" }
    }

    /// 1...10.
    public let version: Int
    public let correction: QRErrorCorrection
    /// 0...7.
    public let mask: Int
    /// Modules per side: 17 + 4 × version.
    public var size: Int { matrix.size }
    let matrix: QRMatrix

    /// Whether the module in column `x`, row `y` is dark (0-based, from the top left corner).
    public func isDark(x: Int, y: Int) -> Bool { matrix.dark[y * matrix.size + x] }

    public init(_ text: String, correction: QRErrorCorrection = .medium) throws(TooLong) {
        try self.init(bytes: Array(text.utf8), correction: correction)
    }

    /// `version` and `mask` fix what would be chosen (tests compare with another encoder's choice).
    public init(bytes: [UInt8], correction: QRErrorCorrection = .medium, version fixedVersion: Int? = nil, mask fixedMask: Int? = nil) throws(TooLong) {
        guard let version = fixedVersion ?? Self.smallestVersion(for: bytes.count, correction: correction),
              (1...QRVersionTable.largestVersion).contains(version),
              bytes.count <= Self.capacity(version: version, correction: correction)
        else {
            throw TooLong(bytes: bytes.count, capacity: Self.capacity(version: fixedVersion ?? QRVersionTable.largestVersion, correction: correction))
        }
        let codewords = Self.interleaved(Self.dataCodewords(bytes, version: version, correction: correction), version: version, correction: correction)
        var chosen: QRMatrix?
        var chosenMask = 0
        var lowest = Int.max
        for mask in fixedMask.map({ [$0] }) ?? Array(0..<8) {
            var matrix = QRMatrix(version: version)
            matrix.place(codewords)
            matrix.apply(mask: mask)
            // Scored with the format and version information still light, as python-qrcode scores them,
            // so that both choose the same mask.
            let penalty = fixedMask == nil ? QRPenalty.score(matrix) : 0
            matrix.drawInformation(correction: correction, mask: mask)
            if penalty < lowest {
                lowest = penalty
                chosen = matrix
                chosenMask = mask
            }
        }
        self.version = version
        self.correction = correction
        self.mask = chosenMask
        self.matrix = chosen ?? QRMatrix(version: version)
    }

    /// Bytes a symbol of `version` holds in byte mode at `correction`: its data codewords less the mode
    /// (4 bits) and the count (8 bits up to version 9, 16 from 10).
    static func capacity(version: Int, correction: QRErrorCorrection) -> Int {
        let bits = QRVersionTable.blocks(version: version, correction: correction).dataCodewords * 8
        return (bits - 4 - countBits(version: version)) / 8
    }

    static func countBits(version: Int) -> Int { version < 10 ? 8 : 16 }

    static func smallestVersion(for count: Int, correction: QRErrorCorrection) -> Int? {
        (1...QRVersionTable.largestVersion).first { capacity(version: $0, correction: correction) >= count }
    }

    /// Mode indicator 0100 (bytes), the count, the bytes, up to four 0 bits of terminator, 0 bits to the
    /// byte, then the pad codewords 0xEC 0x11 alternately up to the version's data codewords (§7.4).
    static func dataCodewords(_ bytes: [UInt8], version: Int, correction: QRErrorCorrection) -> [UInt8] {
        let capacityBits = QRVersionTable.blocks(version: version, correction: correction).dataCodewords * 8
        var bits = BitBuffer()
        bits.append(0b0100, count: 4)
        bits.append(bytes.count, count: countBits(version: version))
        for byte in bytes { bits.append(Int(byte), count: 8) }
        bits.append(0, count: min(4, capacityBits - bits.count))
        bits.append(0, count: (8 - bits.count % 8) % 8)
        var codewords = bits.bytes
        var pad: UInt8 = 0xEC
        while codewords.count * 8 < capacityBits {
            codewords.append(pad)
            pad = pad == 0xEC ? 0x11 : 0xEC
        }
        return codewords
    }

    /// The data split into the version's blocks, each followed by its error correction, interleaved: the
    /// first codeword of every block, then the second, …, then the error correction codewords alike (§7.6).
    static func interleaved(_ data: [UInt8], version: Int, correction: QRErrorCorrection) -> [UInt8] {
        let layout = QRVersionTable.blocks(version: version, correction: correction)
        let divisor = QRReedSolomon.divisor(degree: layout.errorCorrectionPerBlock)
        var blocks: [[UInt8]] = []
        var corrections: [[UInt8]] = []
        var start = 0
        for length in layout.dataPerBlock {
            let block = Array(data[start..<start + length])
            start += length
            blocks.append(block)
            corrections.append(QRReedSolomon.remainder(block, divisor: divisor))
        }
        var result: [UInt8] = []
        result.reserveCapacity(layout.totalCodewords)
        for i in 0..<(layout.dataPerBlock.max() ?? 0) {
            for block in blocks where i < block.count { result.append(block[i]) }
        }
        for i in 0..<layout.errorCorrectionPerBlock {
            for block in corrections { result.append(block[i]) }
        }
        return result
    }
}
