import Foundation

/// The organisation's brand on the page and the console (docs/languages-and-branding.md): the name is
/// `--brand-name` (served in `locale.json`); the accent colours, the logo, the favicon and the extra
/// stylesheet are read and checked here once, at start. An accent that fails WCAG AA (4.5:1) against a
/// background it is used on stops the server, naming the ratio: a brand must not make the page unreadable.
struct Branding: Sendable {
    /// An image the operator gave: its bytes and their type, read from the file's first bytes.
    struct Image: Sendable {
        let data: Data
        let contentType: String
    }

    /// Where the page uses the accent, light scheme: words in the accent on the surface (cards, the
    /// header), on the page's background and on the hover tint; and the primary buttons' words on it.
    static let lightBackgrounds: [(name: String, color: SRGBColor)] = [
        ("the light surface", SRGBColor(red: 0xff, green: 0xff, blue: 0xff)),
        ("the light page background", SRGBColor(red: 0xf3, green: 0xf4, blue: 0xf7)),
        ("the light hover tint", SRGBColor(red: 0xe6, green: 0xee, blue: 0xfb)),
    ]
    static let darkBackgrounds: [(name: String, color: SRGBColor)] = [
        ("the dark surface", SRGBColor(red: 0x18, green: 0x1c, blue: 0x23)),
        ("the dark page background", SRGBColor(red: 0x0f, green: 0x12, blue: 0x17)),
        ("the dark hover tint", SRGBColor(red: 0x1c, green: 0x2a, blue: 0x42)),
    ]
    static let white = SRGBColor(red: 0xff, green: 0xff, blue: 0xff)
    static let ink = SRGBColor(red: 0x0b, green: 0x1a, blue: 0x33)
    static let minimumContrast = 4.5
    static let maximumImageBytes = 512 * 1024
    static let maximumStylesheetBytes = 256 * 1024

    let light: SRGBColor?
    let dark: SRGBColor?
    let logo: Image?
    let favicon: Image?
    let stylesheet: String?

    /// Reads and checks the settings; every refusal says what to change.
    static func load(_ configuration: ServerConfiguration) throws -> Branding {
        let light = try configuration.accentColor.map { try accent($0, setting: "--accent-color", on: lightBackgrounds) }
        let dark = try configuration.accentColorDark.map { try accent($0, setting: "--accent-color-dark", on: darkBackgrounds) }
        let logo = try configuration.brandLogo.map { try image($0, setting: "--brand-logo", allowed: ["image/svg+xml", "image/png"]) }
        let favicon = try configuration.brandFavicon.map {
            try image($0, setting: "--brand-favicon", allowed: ["image/svg+xml", "image/png", "image/x-icon"])
        }
        var stylesheet: String?
        if let path = configuration.brandCSS {
            let data = try read(path, setting: "--brand-css", limit: maximumStylesheetBytes)
            guard let text = String(data: data, encoding: .utf8) else {
                throw ServerConfiguration.Invalid(description: "--brand-css \(path) is not UTF-8 text")
            }
            stylesheet = text
        }
        return Branding(light: light, dark: dark, logo: logo, favicon: favicon, stylesheet: stylesheet)
    }

    /// The colour, if it reads 4.5:1 against every background and its buttons' words (white or dark ink,
    /// whichever is stronger) read 4.5:1 on it.
    static func accent(_ text: String, setting: String, on backgrounds: [(name: String, color: SRGBColor)]) throws -> SRGBColor {
        guard let color = SRGBColor(hex: text.trimmingCharacters(in: .whitespaces)) else {
            throw ServerConfiguration.Invalid(description: "\(setting) must be a colour as #rrggbb or #rgb, not \"\(text)\"")
        }
        for background in backgrounds {
            let ratio = color.contrast(with: background.color)
            guard ratio >= minimumContrast else {
                throw ServerConfiguration.Invalid(description: "\(setting) \(color) has a contrast of \(format(ratio)):1 against \(background.name) "
                    + "(\(background.color)), where it is used for text; WCAG AA needs at least 4.5:1")
            }
        }
        let onAccent = onAccent(color)
        let ratio = color.contrast(with: onAccent)
        guard ratio >= minimumContrast else {
            throw ServerConfiguration.Invalid(description: "\(setting) \(color) has a contrast of \(format(ratio)):1 with its buttons' words "
                + "(\(onAccent)); WCAG AA needs at least 4.5:1")
        }
        return color
    }

    /// The words on a button of colour `accent`: white or dark ink, whichever contrasts more.
    static func onAccent(_ accent: SRGBColor) -> SRGBColor {
        accent.contrast(with: white) >= accent.contrast(with: ink) ? white : ink
    }

    /// A ratio with two decimals, rounded down so that a refusal never shows 4.50 for 4.497.
    static func format(_ ratio: Double) -> String {
        // A contrast ratio is 1...21; anything else (NaN from a broken colour) shows as 0.00, never traps.
        let hundredths = ratio.isFinite ? Int((min(max(ratio, 0), 100) * 100).rounded(.down)) : 0
        return "\(hundredths / 100).\(String(hundredths % 100).count == 1 ? "0" : "")\(hundredths % 100)"
    }

    static func read(_ path: String, setting: String, limit: Int) throws -> Data {
        let url = URL(fileURLWithPath: path)
        guard let size = (try? url.resourceValues(forKeys: [.fileSizeKey]))?.fileSize else {
            throw ServerConfiguration.Invalid(description: "\(setting) \(path) cannot be read")
        }
        guard size <= limit else { throw ServerConfiguration.Invalid(description: "\(setting) \(path) is larger than \(limit / 1024) KiB") }
        guard let data = try? Data(contentsOf: url) else { throw ServerConfiguration.Invalid(description: "\(setting) \(path) cannot be read") }
        return data
    }

    /// An image, its type read from its first bytes (a file's name proves nothing).
    static func image(_ path: String, setting: String, allowed: [String]) throws -> Image {
        let data = try read(path, setting: setting, limit: maximumImageBytes)
        guard let type = imageType(of: data), allowed.contains(type) else {
            throw ServerConfiguration.Invalid(description: "\(setting) \(path) is not \(allowed.map { $0.replacingOccurrences(of: "image/", with: "") }.joined(separator: " or "))")
        }
        return Image(data: data, contentType: type)
    }

    /// The type of an image read from its first bytes: PNG's signature, ICO's header, or an SVG element
    /// in the first 4 KiB of UTF-8 text; nil for anything else. (An OIDC client's logo is read so too.)
    static func imageType(of data: Data) -> String? {
        if data.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return "image/png" }
        if data.starts(with: [0x00, 0x00, 0x01, 0x00]) { return "image/x-icon" }
        if let text = String(data: data.prefix(4096), encoding: .utf8), text.contains("<svg") { return "image/svg+xml" }
        return nil
    }

    /// `/brand.css`: the accents as the stylesheets' tokens, then the operator's own stylesheet.
    var css: String {
        var css = "/* The brand: --accent-color, --accent-color-dark and --brand-css (docs/languages-and-branding.md). */\n"
        if let light {
            css += ":root { --accent: \(light); --accent-hover: \(light); --focus: \(light); --on-accent: \(Self.onAccent(light)); }\n"
        }
        if let dark {
            css += "@media (prefers-color-scheme: dark) { :root { --accent: \(dark); --accent-hover: \(dark); --focus: \(dark); --on-accent: \(Self.onAccent(dark)); } }\n"
        }
        if let stylesheet { css += "\n" + stylesheet + "\n" }
        return css
    }
}
