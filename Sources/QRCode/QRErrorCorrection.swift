/// How much of a QR code may be damaged and still read (ISO/IEC 18004 §6.5.1): about 7 % (low), 15 %
/// (medium), 25 % (quartile) or 30 % (high) of its codewords. Medium is what most generators default to,
/// and what a phone's camera reads off a screen without trouble.
public enum QRErrorCorrection: Sendable, CaseIterable {
    case low, medium, quartile, high

    /// The two bits the format information carries for the level (L 01, M 00, Q 11, H 10).
    var formatBits: Int {
        switch self {
        case .low: 1
        case .medium: 0
        case .quartile: 3
        case .high: 2
        }
    }
}
