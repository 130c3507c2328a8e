import Foundation

/// WCAG 2.x contrast between two sRGB colours (`#rgb` or `#rrggbb`): (L1 + 0.05) / (L2 + 0.05) of their
/// relative luminances, 1:1 to 21:1. AA asks 4.5:1 for text, which is what the accent colour is used as
/// (links, the secondary buttons' words) and what is written on it (the primary buttons').
package struct SRGBColor: Sendable, Equatable, CustomStringConvertible {
    package let red: Int
    package let green: Int
    package let blue: Int

    /// `#rgb` or `#rrggbb`; nil for anything else.
    package init?(hex text: String) {
        guard text.first == "#" else { return nil }
        var digits = Array(text.dropFirst())
        if digits.count == 3 { digits = digits.flatMap { [$0, $0] } }
        guard digits.count == 6, digits.allSatisfy(\.isHexDigit) else { return nil }
        func channel(_ index: Int) -> Int { Int(String(digits[index..<(index + 2)]), radix: 16) ?? 0 }
        self.init(red: channel(0), green: channel(2), blue: channel(4))
    }

    package init(red: Int, green: Int, blue: Int) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    package var description: String {
        "#" + [red, green, blue].map { String($0, radix: 16).leftPadded(to: 2) }.joined()
    }

    /// WCAG's relative luminance: each channel linearised (the sRGB transfer function), weighted.
    package var luminance: Double {
        func linear(_ value: Int) -> Double {
            let c = Double(value) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    package func contrast(with other: SRGBColor) -> Double {
        let (a, b) = (luminance, other.luminance)
        return (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }
}

private extension String {
    func leftPadded(to width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}
