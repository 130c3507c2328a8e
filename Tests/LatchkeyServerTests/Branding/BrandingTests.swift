import Foundation
import HTTPTypes
import Testing
@testable import LatchkeyServer

/// The brand: accents checked for WCAG AA at start, the logo and favicon served as images that run
/// nothing, the extra stylesheet after Latchkey's (docs/languages-and-branding.md).
@Suite("Branding")
struct BrandingTests {
    @Test("WCAG contrast: black on white is 21:1, a colour on itself 1:1, #767676 on white just passes")
    func contrast() throws {
        let white = try #require(SRGBColor(hex: "#fff"))
        let black = try #require(SRGBColor(hex: "#000000"))
        #expect(abs(black.contrast(with: white) - 21) < 0.001)
        #expect(white.contrast(with: white) == 1)
        #expect(try #require(SRGBColor(hex: "#767676")).contrast(with: white) >= 4.5)
        #expect(try #require(SRGBColor(hex: "#777777")).contrast(with: white) < 4.5)
        #expect(SRGBColor(hex: "1d58b8") == nil)
        #expect(SRGBColor(hex: "#12345g") == nil)
        #expect(SRGBColor(hex: "#1D58B8")?.description == "#1d58b8")
        #expect(Branding.format(4.478) == "4.47")
        #expect(Branding.format(21) == "21.00")
    }

    @Test("a low-contrast accent stops the server, naming its ratio and the background")
    func lowContrastRefused() throws {
        #expect(throws: Never.self) { try Branding.load(TestServer.configuration { $0.accentColor = "#0b6e4f"; $0.accentColorDark = "#5fd3a6" }) }
        do {
            _ = try Branding.load(TestServer.configuration { $0.accentColor = "#ffcc00" })
            Issue.record("a yellow accent on white was accepted")
        } catch let error as ServerConfiguration.Invalid {
            #expect(error.description.contains("--accent-color #ffcc00 has a contrast of 1.51:1 against the light surface"), "\(error.description)")
            #expect(error.description.contains("4.5:1"))
        }
        do {
            _ = try Branding.load(TestServer.configuration { $0.accentColorDark = "#1d58b8" })
            Issue.record("Latchkey's light accent was accepted on the dark background")
        } catch let error as ServerConfiguration.Invalid {
            #expect(error.description.contains("--accent-color-dark #1d58b8 has a contrast of 2.55:1 against the dark surface"), "\(error.description)")
        }
        #expect(throws: ServerConfiguration.Invalid.self) { try Branding.load(TestServer.configuration { $0.accentColor = "blue" }) }
    }

    @Test("a logo is a PNG or an SVG by its bytes; anything else, or too large, is refused")
    func images() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-brand-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let svg = folder.appendingPathComponent("logo.svg")
        try Data(#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><rect width="10" height="10"/></svg>"#.utf8).write(to: svg)
        let text = folder.appendingPathComponent("logo.png")
        try Data("not an image".utf8).write(to: text)
        let huge = folder.appendingPathComponent("huge.png")
        try Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 600 * 1024)).write(to: huge)
        #expect(try Branding.load(TestServer.configuration { $0.brandLogo = svg.path }).logo?.contentType == "image/svg+xml")
        #expect(throws: ServerConfiguration.Invalid.self) { try Branding.load(TestServer.configuration { $0.brandLogo = text.path }) }
        #expect(throws: ServerConfiguration.Invalid.self) { try Branding.load(TestServer.configuration { $0.brandLogo = huge.path }) }
        #expect(throws: ServerConfiguration.Invalid.self) { try Branding.load(TestServer.configuration { $0.brandFavicon = folder.appendingPathComponent("none").path }) }
    }

    @Test("brand.css carries the accents and the operator's stylesheet; the logo is served under a sandboxing policy")
    func served() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-brand-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let logo = folder.appendingPathComponent("logo.svg")
        try Data(#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#.utf8).write(to: logo)
        let css = folder.appendingPathComponent("brand.css")
        try Data(".brand-name { letter-spacing: 0.1em; }".utf8).write(to: css)
        let configuration = TestServer.configuration {
            $0.accentColor = "#0b6e4f"
            $0.brandLogo = logo.path
            $0.brandCSS = css.path
        }
        try await TestServer.run(configuration) { api in
            let stylesheet = try await api.send(.get, "/brand.css")
            #expect(stylesheet.status == .ok)
            #expect(stylesheet.text.contains("--accent: #0b6e4f"))
            #expect(stylesheet.text.contains("--on-accent: #ffffff"))
            #expect(stylesheet.text.contains("letter-spacing: 0.1em"))
            let image = try await api.send(.get, "/brand/logo")
            #expect(image.status == .ok)
            #expect(image.headers[.contentType] == "image/svg+xml")
            #expect(image.headers[.contentSecurityPolicy] == "default-src 'none'; style-src 'unsafe-inline'; sandbox")
            let favicon = try await api.send(.get, "/brand/favicon")
            let locale = try await api.send(.get, "/locale.json")
            #expect(favicon.status == .notFound)
            #expect(locale.json?["logo"] as? Bool == true)
        }
        try await TestServer.run { api in
            let logo = try await api.send(.get, "/brand/logo")
            let stylesheet = try await api.send(.get, "/brand.css")
            #expect(logo.status == .notFound)
            #expect(!stylesheet.text.contains("--accent:"))
        }
    }
}
