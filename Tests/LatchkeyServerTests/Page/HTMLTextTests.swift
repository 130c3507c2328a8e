import Foundation
import HTTPTypes
import LatchkeyAPI
import SoftAuthenticator
import Testing
@testable import LatchkeyServer

/// The one HTML escaper (`HTMLText`) and every page the server renders with a caller's text in it: the
/// OpenID Connect error page (`/authorize`, `POST /authorize`, `/end-session`) and Hanko's `/content`.
/// Each is fed every scalar class that merges with `<`, `>`, `"`, `'` or `&` into one grapheme cluster —
/// Prepend letters before them, combining marks, ZWJ, variation selectors and emoji modifiers after — and
/// must come out with exactly the tags Latchkey wrote (the fourth review, S4-1: a Prepend letter hid a
/// `<meta http-equiv=refresh>` from a per-`Character` escaper, an open redirect on `/authorize`).
@Suite("HTML escaping per scalar, on every rendered page")
struct HTMLTextTests {
    /// Scalars that join the character beside them into one cluster: Prepend (Arabic number sign,
    /// Malayalam dot reph, Kaithi number sign, Arabic end of ayah), and extenders (combining acute, the
    /// long solidus overlay that NFC would fold `<` into ≮, ZWJ, VS16, a skin tone).
    static let joiners: [Unicode.Scalar] = ["\u{600}", "\u{D4E}", "\u{110BD}", "\u{6DD}", "\u{301}", "\u{338}", "\u{200D}", "\u{FE0F}", "\u{1F3FB}"]
    static let special: [Unicode.Scalar] = ["<", ">", "\"", "'", "&"]

    /// Every joiner before and after every special character, in one text.
    static var hostile: String {
        var text = String.UnicodeScalarView()
        for joiner in joiners {
            for scalar in special {
                text.append(contentsOf: [joiner, scalar, joiner, "x"])
            }
        }
        return String(text)
    }

    /// The page's tags, in order (`<!doctype`, `html`, `/p`, …): what Latchkey wrote, and nothing else.
    static func tags(_ html: String) -> [String] {
        var tags: [String] = []
        var scalars = html.unicodeScalars[...]
        while let open = scalars.firstIndex(of: "<") {
            scalars = scalars[scalars.index(after: open)...]
            tags.append(String(String.UnicodeScalarView(scalars.prefix { $0 != " " && $0 != ">" })))
        }
        return tags
    }

    @Test("no special character survives, whatever joins it; decoding gives the text back")
    func escaper() {
        let escaped = HTMLText.escaped(Self.hostile)
        #expect(!escaped.unicodeScalars.contains { Self.special.contains($0) && $0 != "&" })
        // Every other scalar kept as it was, each special one as its entity (compared per scalar: a String
        // comparison would fold ̸< into ≮).
        let entities: [Unicode.Scalar: String] = ["<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;", "&": "&amp;"]
        let expected = Self.hostile.unicodeScalars.flatMap { entities[$0].map { Array($0.unicodeScalars) } ?? [$0] }
        #expect(escaped.unicodeScalars.elementsEqual(expected))
        #expect(HTMLText.escaped(#"<a href="x">'&'</a>"#) == "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;")
    }

    @Test("the error page keeps its own tags whatever its message holds, and allows no script, form or image")
    func errorPage() {
        let reference = OIDCErrorPage.response(APIError(.oidcMalformedRequest, "plain"))
        let hostile = OIDCErrorPage.response(APIError(.oidcMalformedRequest, Self.hostile))
        #expect(hostile.headers[.contentSecurityPolicy] == "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
        #expect(reference.status == hostile.status)
    }

    @Test("a repeated parameter's name is never echoed: /authorize, POST /authorize and /end-session keep their tags")
    func repeatedNames() async throws {
        try await TestServer.run(TestServer.configuration { $0.oidc = true }) { api in
            let reference = try await api.send(.get, "/authorize?client_id=a&client_id=b")
            #expect(reference.status == .badRequest)
            let expected = Self.tags(reference.text)
            #expect(expected.contains("main") && expected.contains("/html"))
            for joiner in Self.joiners {
                let name = "\(joiner)<meta http-equiv=refresh content=0;url=https://attacker.example/\(joiner)>\(joiner)\"\(joiner)'\(joiner)&"
                let encoded = try #require(name.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
                let query = "\(encoded)=1&\(encoded)=1"
                let replies = [
                    try await api.send(.get, "/authorize?\(query)"),
                    try await api.send(.post, "/authorize", body: Data(query.utf8), contentType: "application/x-www-form-urlencoded"),
                    try await api.send(.get, "/end-session?\(query)"),
                ]
                for reply in replies {
                    #expect(reply.status == .badRequest && reply.headers[.location] == nil, "\(reply.status)")
                    #expect(Self.tags(reply.text) == expected, "\(reply.text)")
                    #expect(!reply.text.contains("attacker.example") && reply.text.contains("has a parameter more than once"), "\(reply.text)")
                    #expect(reply.headers[.contentSecurityPolicy]?.contains("script-src") == false)
                }
            }
            // A name the endpoints read is named: the app's developer learns which.
            #expect(try await api.send(.get, "/authorize?scope=openid&scope=email").text.contains("has the parameter scope more than once"))
        }
    }

    @Test("a client id in a sentence keeps letters and digits per scalar, never a < its Prepend letter hid")
    func shownClientId() {
        for joiner in Self.joiners {
            let shown = OIDCAuthorizationRequest.shown("app\(joiner)<script>\(joiner)\"")
            #expect(!shown.unicodeScalars.contains { Self.special.contains($0) }, "\(shown.unicodeScalars.map(\.value))")
        }
        #expect(OIDCAuthorizationRequest.shown("my-app_1.example:x") == "my-app_1.example:x")
        #expect(OIDCAuthorizationRequest.shown("アプリ") == "アプリ")
    }

    @Test("Hanko's /content shows a hostile display name escaped, with its own tags only")
    func hankoContent() async throws {
        try await TestServer.run(TestServer.configuration { $0.compatibility = [.hanko] }) { api in
            for joiner in Self.joiners {
                var name = String.UnicodeScalarView()
                for scalar in Self.special { name.append(contentsOf: [joiner, scalar, joiner]) }
                let session = try await api.register(String(name) + "b", with: SoftAuthenticator(store: InMemoryCredentialStore()))
                let cookie = "\(SessionCookie.name(secure: true, domain: nil))=\(session.token)"
                let page = try await api.send(.get, "/content", headers: [.cookie: cookie])
                #expect(page.status == .ok)
                #expect(Self.tags(page.text) == [
                    "!doctype", "html", "head", "meta", "title", "/title", "/head", "body", "h1", "/h1", "p", "/p", "p", "a", "/a", "/p", "/body", "/html",
                ], "\(page.text)")
                #expect(page.headers[.contentSecurityPolicy]?.hasPrefix("default-src 'none'; style-src 'self'") == true)
            }
        }
    }
}
