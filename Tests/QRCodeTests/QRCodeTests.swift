import Foundation
@testable import QRCode
import Testing

/// Latchkey's QR codes against python-qrcode's (fixtures.json, made by make-fixtures.py): every version
/// 1–10 at every level, and all eight masks of versions 1, 2 and 7, module for module — the data's
/// encoding, the Reed–Solomon blocks and their interleaving, the function patterns, the format and version
/// information and the masks all show in the modules — and the version and mask each chooses by itself.
@Suite("QR codes")
struct QRCodeTests {
    struct Fixture: Decodable {
        let bytes: String
        let level: String
        let version: Int
        let mask: Int
        let rows: [String]
        let chosenVersion: Int
        let chosenMask: Int
    }

    struct Fixtures: Decodable {
        let encoder: String
        let cases: [Fixture]
    }

    static let fixtures: [Fixture] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("fixtures.json")
        guard let data = try? Data(contentsOf: url), let read = try? JSONDecoder().decode(Fixtures.self, from: data) else { return [] }
        return read.cases
    }()

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex, let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex) {
            bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    static func level(_ name: String) -> QRErrorCorrection {
        switch name {
        case "low": .low
        case "quartile": .quartile
        case "high": .high
        default: .medium
        }
    }

    /// The modules of `code` row by row, packed as the fixtures pack them.
    static func rows(_ code: QRCode) -> [String] {
        (0..<code.size).map { y in
            var bytes = [UInt8](repeating: 0, count: (code.size + 7) / 8)
            for x in 0..<code.size where code.isDark(x: x, y: y) { bytes[x / 8] |= UInt8(0x80 >> (x % 8)) }
            return bytes.map { String(format: "%02x", $0) }.joined()
        }
    }

    @Test("the fixtures are there: 176 symbols of python-qrcode's")
    func fixturesLoad() {
        #expect(Self.fixtures.count == 176)
    }

    @Test("every version and level, and every mask, module for module as python-qrcode makes it")
    func sameModulesAsSegno() throws {
        for fixture in Self.fixtures {
            let code = try QRCode(bytes: Self.hex(fixture.bytes), correction: Self.level(fixture.level), version: fixture.version, mask: fixture.mask)
            #expect(code.size == 17 + 4 * fixture.version)
            let rows = Self.rows(code)
            let wrong = zip(rows, fixture.rows).enumerated().filter { $0.element.0 != $0.element.1 }.map(\.offset)
            #expect(wrong.isEmpty, "version \(fixture.version) \(fixture.level) mask \(fixture.mask), \(fixture.bytes.count / 2) bytes: rows \(wrong) differ")
        }
    }

    @Test("left to choose, the same version and mask as python-qrcode: the smallest version that holds the bytes, the mask of lowest penalty")
    func choosesAsPythonQRCode() throws {
        for fixture in Self.fixtures {
            let bytes = Self.hex(fixture.bytes)
            let correction = Self.level(fixture.level)
            let code = try QRCode(bytes: bytes, correction: correction)
            #expect(code.version == fixture.chosenVersion, "\(bytes.count) bytes at \(fixture.level)")
            #expect(code.mask == fixture.chosenMask, "\(bytes.count) bytes at \(fixture.level), version \(code.version)")
            #expect(QRCode.capacity(version: code.version, correction: correction) >= bytes.count)
            if code.version > 1 { #expect(QRCode.capacity(version: code.version - 1, correction: correction) < bytes.count) }
        }
    }

    @Test("capacities are the standard's (Table 7, byte mode), and every block layout adds up to its version's codewords")
    func capacities() {
        let medium = (1...10).map { QRCode.capacity(version: $0, correction: .medium) }
        #expect(medium == [14, 26, 42, 62, 84, 106, 122, 152, 180, 213])
        #expect((1...10).map { QRCode.capacity(version: $0, correction: .high) } == [7, 14, 24, 34, 44, 58, 64, 84, 98, 119])
        for version in 1...10 {
            for correction in QRErrorCorrection.allCases {
                #expect(QRVersionTable.blocks(version: version, correction: correction).totalCodewords == QRVersionTable.totalCodewords[version - 1])
            }
        }
    }

    @Test("more than version 10 holds is refused, with the capacity named")
    func tooLong() {
        #expect(throws: QRCode.TooLong.self) { try QRCode(bytes: Array(repeating: 0x41, count: 214), correction: .medium) }
        do {
            _ = try QRCode(bytes: Array(repeating: 0x41, count: 500))
        } catch {
            #expect(error.description == "500 bytes do not fit a QR code (at most 213 at this correction)")
        }
        #expect((try? QRCode(bytes: Array(repeating: 0x41, count: 213)))?.version == 10)
    }

    @Test("the terminal's lines: two rows of modules a line, black on white, the quiet zone around")
    func terminal() throws {
        let code = try QRCode("https://id.example.com/device?user_code=WDJB-MJHT")
        let lines = code.terminalLines(quietZone: 2, colours: false)
        let span = code.size + 4
        #expect(lines.count == (span + 1) / 2)
        #expect(lines.allSatisfy { $0.count == span })
        #expect(lines[0] == String(repeating: " ", count: span), "the quiet zone's first two rows")
        // The top left finder's first two rows, under the quiet zone: seven dark modules above, the ring's
        // two ends below them.
        #expect(lines[1].dropFirst(2).prefix(7) == "█▀▀▀▀▀█")
        let coloured = code.terminalLines(colours: true)
        #expect(coloured.allSatisfy { $0.hasPrefix("\u{1B}[30;47m") && $0.hasSuffix("\u{1B}[0m") })
    }

    @Test("the SVG: one unit a module, the quiet zone, nothing of the encoded text in it")
    func svg() throws {
        let code = try QRCode("<script>alert(1)</script>")
        let svg = code.svg(quietZone: 4)
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(code.size + 8) \(code.size + 8)\""))
        #expect(!svg.contains("script"))
        let squares = svg.components(separatedBy: "h1v1h-1z").count - 1
        let dark = (0..<code.size).reduce(0) { sum, y in sum + (0..<code.size).filter { code.isDark(x: $0, y: y) }.count }
        #expect(squares == dark)
    }
}
