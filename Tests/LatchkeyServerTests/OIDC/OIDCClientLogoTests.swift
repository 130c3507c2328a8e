import Foundation
import HTTPTypes
import LatchkeyAPI
import Testing
@testable import LatchkeyServer

/// An OpenID Connect client's logo (issue 48 item 3): given by an operator as a PNG or SVG file (base64 in
/// the admin API's `logo`), its type read from its bytes, bounded; served at `/oidc/logo/{id}` with the
/// brand logo's sandboxing policy, and named in the consent decision so the page shows it.
@Suite("OpenID Connect: a client's logo")
struct OIDCClientLogoTests {
    /// The smallest PNG: its signature and an IHDR; a browser need not draw it for these checks.
    static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52])
    static let svg = Data(#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><script>alert(1)</script><rect width="10" height="10"/></svg>"#.utf8)

    @Test("the logo is read from its bytes: PNG and SVG taken, anything else, empty or over 32 KiB refused; \"\" removes")
    func rules() throws {
        #expect(try OIDCClientLogo.read(base64: Self.png.base64EncodedString())?.contentType == "image/png")
        #expect(try OIDCClientLogo.read(base64: Self.svg.base64EncodedString())?.contentType == "image/svg+xml")
        #expect(try OIDCClientLogo.read(base64: "") == nil)
        let gif = Data("GIF89a\u{01}\u{00}\u{01}\u{00}".utf8)
        let ico = Data([0x00, 0x00, 0x01, 0x00, 0x01, 0x00])
        let large = Self.png + Data(repeating: 0, count: OIDCClientLogo.maximumBytes)
        for bad in [gif.base64EncodedString(), ico.base64EncodedString(), "not base64!", large.base64EncodedString(),
                    String(repeating: "A", count: 1_000_000)] {
            #expect(throws: APIError.self) { try OIDCClientLogo.read(base64: bad) }
        }
    }

    @Test("given through the admin API: served with its type and the sandboxing policy, named in the consent decision, replaced and removed")
    func servedAndShown() async throws {
        try await OIDCTestFlow.run { flow in
            let created = try await flow.api.send(.post, "/api/admin/clients", object: [
                "name": "Team Notes", "redirectUris": [OIDCTestFlow.callback], "scopes": ["openid", "profile"],
                "logo": Self.svg.base64EncodedString(),
            ], token: flow.adminKey)
            #expect(created.status == .created, "\(created.text)")
            let client = try #require(created.json?["client"] as? [String: Any])
            let id = try #require(client["id"] as? String)
            #expect(client["logo"] as? String == "/oidc/logo/\(id)")

            let served = try await flow.api.send(.get, "/oidc/logo/\(id)")
            #expect(served.status == .ok)
            #expect(served.headers[.contentType] == "image/svg+xml")
            #expect(served.headers[.contentSecurityPolicy] == "default-src 'none'; style-src 'unsafe-inline'; sandbox")
            #expect(served.headers[HTTPField.Name("X-Content-Type-Options")!] == "nosniff")
            #expect(served.data == Self.svg)
            let etag = try #require(served.headers[.eTag])
            #expect(try await flow.api.send(.get, "/oidc/logo/\(id)", headers: [.ifNoneMatch: etag]).status == .notModified)

            // The consent decision names it, relative to the page.
            let person = try await flow.person()
            let query = OIDCTestFlow.form([
                ("response_type", "code"), ("client_id", id), ("redirect_uri", OIDCTestFlow.callback), ("scope", "openid profile"),
                ("state", "s"), ("nonce", "n"),
            ])
            let decision = try await flow.api.send(.post, "/api/oidc/authorization", object: ["query": query], token: person.token)
            #expect(decision.json?["interaction"] as? String == "consent", "\(decision.text)")
            #expect((decision.json?["client"] as? [String: Any])?["logo"] as? String == "oidc/logo/\(id)", "\(decision.text)")
            // Once allowed, "Apps with access" names it too.
            var consent: [String: Any] = ["query": query, "allow": true]
            if let after = decision.json?["after"] as? String { consent["after"] = after }
            #expect(try await flow.api.send(.post, "/api/oidc/consent", object: consent, token: person.token).status == .ok)
            func appsLogo() async throws -> Any? {
                let apps = try await flow.api.send(.get, "/api/account/apps", token: person.token)
                return try #require(apps.array?.first { $0["clientId"] as? String == id }, "\(apps.text)")["logo"]
            }
            #expect(try await appsLogo() as? String == "oidc/logo/\(id)")

            // A gif is refused with the field named; a PNG replaces the SVG; "" removes it.
            let gif = try await flow.api.send(
                .patch, "/api/admin/clients/\(id)", object: ["logo": Data("GIF89a".utf8).base64EncodedString()], token: flow.adminKey)
            #expect(gif.status.code == 422 && gif.errorCode == "invalid_field" && gif.text.contains("logo"), "\(gif.text)")
            let replaced = try await flow.api.send(.patch, "/api/admin/clients/\(id)", object: ["logo": Self.png.base64EncodedString()], token: flow.adminKey)
            #expect(replaced.status == .ok, "\(replaced.text)")
            let png = try await flow.api.send(.get, "/oidc/logo/\(id)")
            #expect(png.headers[.contentType] == "image/png" && png.data == Self.png)
            // An update that does not name the logo leaves it.
            #expect(try await flow.api.send(.patch, "/api/admin/clients/\(id)", object: ["name": "Team Notes 2"], token: flow.adminKey).status == .ok)
            #expect(try await flow.api.send(.get, "/oidc/logo/\(id)").status == .ok)
            let removed = try await flow.api.send(.patch, "/api/admin/clients/\(id)", object: ["logo": ""], token: flow.adminKey)
            #expect((removed.json?["client"] as? [String: Any])?["logo"] is NSNull, "\(removed.text)")
            #expect(try await appsLogo() is NSNull)
            let gone = try await flow.api.send(.get, "/oidc/logo/\(id)")
            #expect(gone.status == .notFound && gone.errorCode == "not_found", "\(gone.text)")
            let again = try await flow.api.send(.post, "/api/oidc/authorization", object: ["query": query], token: person.token)
            #expect((again.json?["client"] as? [String: Any])?["logo"] == nil, "no logo, no member: \(again.text)")
            #expect(try await flow.api.send(.get, "/oidc/logo/nobody").errorCode == "not_found")
        }
    }

    @Test("a client's ordinary reads leave the bytes out; the logo survives in the row, for export")
    func storedApart() async throws {
        try await OIDCTestFlow.run { flow in
            let created = try await flow.api.send(.post, "/api/admin/clients", object: [
                "name": "Logo app", "redirectUris": [OIDCTestFlow.callback], "logo": Self.png.base64EncodedString(),
            ], token: flow.adminKey)
            let id = try #require((created.json?["client"] as? [String: Any])?["id"] as? String, "\(created.text)")
            let record = try #require(try await flow.application.store.oidcClients.client(id: id))
            #expect(record.logoType == "image/png")
            #expect(try await flow.application.store.oidcClients.logo(id: id) == OIDCClientLogo(data: Self.png, contentType: "image/png"))
        }
    }
}
