import Foundation
import HTTPTypes
import Testing
@testable import LatchkeyServer

/// The catalogues, the choice of a language and the server's plural rules (docs/languages-and-branding.md).
@Suite("Languages")
struct LocalizationTests {
    static let catalogues: Catalogues? = try? Catalogues.load(defaultLanguage: "en")

    @Test("Accept-Language: ranges by weight, q=0 and malformed ranges left out, the header bounded")
    func acceptLanguage() {
        #expect(AcceptLanguage.ranges("fr-CH, fr;q=0.9, en;q=0.8, de;q=0.7, *;q=0.5") == ["fr-ch", "fr", "en", "de", "*"])
        #expect(AcceptLanguage.ranges("de;q=0.5, ja") == ["ja", "de"])
        #expect(AcceptLanguage.ranges("ar;q=0, nl") == ["nl"])
        #expect(AcceptLanguage.ranges("<script>, pl;q=2, it;q=abc, es") == ["es"])
        #expect(AcceptLanguage.ranges(nil) == [])
        #expect(AcceptLanguage.ranges("") == [])
        // 100 000 ranges: only the first 32 are read, and nothing past the first 1 024 bytes.
        let huge = Array(repeating: "xx", count: 100_000).joined(separator: ",") + ",de"
        #expect(AcceptLanguage.ranges(huge).count == 32)
        #expect(!AcceptLanguage.ranges(huge).contains("de"))
        #expect(AcceptLanguage.ranges(String(repeating: "a", count: 36)) == [])
    }

    @Test("the language: the picker's choice, then Accept-Language exactly or by primary language, then the default")
    func negotiation() throws {
        let catalogues = try #require(Self.catalogues)
        #expect(catalogues.negotiate(choice: "ar", acceptLanguage: "de") == "ar")
        #expect(catalogues.negotiate(choice: "pt-br", acceptLanguage: nil) == "pt-BR")
        #expect(catalogues.negotiate(choice: "klingon", acceptLanguage: "de-AT, en;q=0.5") == "de")
        #expect(catalogues.negotiate(choice: nil, acceptLanguage: "sv, nl;q=0.4") == "nl")
        #expect(catalogues.negotiate(choice: nil, acceptLanguage: "zh-CN") == "zh-Hans")
        #expect(catalogues.negotiate(choice: nil, acceptLanguage: "zh-TW") == "en", "traditional Chinese is not given simplified")
        #expect(catalogues.negotiate(choice: nil, acceptLanguage: "pt-PT") == "pt-BR")
        #expect(catalogues.negotiate(choice: nil, acceptLanguage: "en-XA") == "en-XA")
        #expect(catalogues.negotiate(choice: nil, acceptLanguage: "en-US") == "en", "the pseudo-locale is never a primary-language match")
        #expect(catalogues.negotiate(choice: nil, acceptLanguage: "sv") == "en")
        let french = try Catalogues.load(defaultLanguage: "fr")
        #expect(french.negotiate(choice: nil, acceptLanguage: "sv, *;q=0.1") == "fr")
        #expect(french.negotiate(choice: nil, acceptLanguage: nil) == "fr")
        #expect(throws: ServerConfiguration.Invalid.self) { try Catalogues.load(defaultLanguage: "tlh") }
    }

    @Test("at least ten languages besides English, one right to left, and the pseudo-locale")
    func shipped() throws {
        let catalogues = try #require(Self.catalogues)
        for code in ["de", "fr", "es", "pt-BR", "ja", "zh-Hans", "ar", "it", "nl", "pl", "en-XA"] {
            #expect(catalogues.byCode[code] != nil, "\(code)")
        }
        #expect(catalogues.byCode["ar"]?.direction == "rtl")
        #expect(catalogues.byCode["de"]?.direction == "ltr")
        #expect(catalogues.byCode["en-XA"]?.isPseudo == true)
        #expect(catalogues.byCode["ja"]?.name == "日本語")
    }

    @Test("every catalogue: only English's keys, each with English's parameters; the pseudo-locale complete")
    func keysMatchEnglish() throws {
        let catalogues = try #require(Self.catalogues)
        let english = try #require(catalogues.byCode["en"]).messages
        func parameters(_ message: MessageCatalogue.Message) -> Set<String> {
            let texts: [String]
            switch message {
            case .text(let text): texts = [text]
            case .plural(let forms): texts = Array(forms.values)
            }
            return Set(texts.flatMap { $0.matches(of: /\{([A-Za-z0-9_]+)\}/).map { String($0.1) } })
        }
        for (code, catalogue) in catalogues.byCode where code != "en" {
            for (key, message) in catalogue.messages where key != "language.pseudo" {
                guard let source = english[key] else {
                    Issue.record("\(code).json has \(key), which en.json lacks")
                    continue
                }
                #expect(parameters(message) == parameters(source), "\(code).json \(key): parameters differ from English")
            }
        }
        let pseudo = try #require(catalogues.byCode["en-XA"]).messages
        #expect(Set(english.keys).subtracting(pseudo.keys).isEmpty, "run scripts/pseudo-locale")
    }

    @Test("the core of every language is translated: the welcome, account and consent views, the header and footer")
    func coreComplete() throws {
        let catalogues = try #require(Self.catalogues)
        let core = try #require(catalogues.byCode["de"]).messages.keys
        #expect(core.count >= 45)
        for (code, catalogue) in catalogues.byCode where code != "en" {
            let missing = Set(core).subtracting(catalogue.messages.keys)
            #expect(missing.isEmpty, "\(code).json lacks \(missing.sorted())")
        }
    }

    @Test("CLDR plural categories of whole numbers in the shipped languages")
    func plurals() {
        #expect(PluralRules.category(of: 1, language: "en") == .one)
        #expect(PluralRules.category(of: 0, language: "en") == .other)
        #expect(PluralRules.category(of: 0, language: "fr") == .one)
        #expect(PluralRules.category(of: 1, language: "pt-BR") == .one)
        #expect(PluralRules.category(of: 1_000_000, language: "es") == .many)
        #expect(PluralRules.category(of: 1, language: "ja") == .other)
        #expect(PluralRules.category(of: 2, language: "pl") == .few)
        #expect(PluralRules.category(of: 22, language: "pl") == .few)
        #expect(PluralRules.category(of: 12, language: "pl") == .many)
        #expect(PluralRules.category(of: 5, language: "pl") == .many)
        #expect(PluralRules.category(of: 0, language: "ar") == .zero)
        #expect(PluralRules.category(of: 2, language: "ar") == .two)
        #expect(PluralRules.category(of: 103, language: "ar") == .few)
        #expect(PluralRules.category(of: 11, language: "ar") == .many)
        #expect(PluralRules.category(of: 100, language: "ar") == .other)
    }

    @Test("a message with parameters, in a language or English where the language lacks it")
    func messages() throws {
        let catalogues = try #require(Self.catalogues)
        #expect(catalogues.message("ui.count-of-limit-characters", language: "de", ["count": "3", "limit": "255"]) == "3 von 255 Zeichen")
        #expect(catalogues.message("no.such.key", language: "de") == "no.such.key")
        // A language that lacks a message (an operator's own catalogue, say) reads English's.
        let partial = try Catalogues(catalogues: [
            MessageCatalogue(code: "en", data: Data(#"{"a": "Account created", "b": "Signed out"}"#.utf8)),
            MessageCatalogue(code: "xx", data: Data(#"{"b": "Abgemeldet"}"#.utf8)),
        ], defaultLanguage: "en")
        #expect(partial.message("a", language: "xx") == "Account created", "English under the language")
        #expect(partial.message("b", language: "xx") == "Abgemeldet")
    }

    /// Messages that read the same as English in a language and are right so: a word the language
    /// borrowed ("Browser", "Passkeys" in German and Dutch, "Email" in Italian), or one spelt alike
    /// ("Actions", "Sessions", "Secret" in French). Anything else equal to English is a message nobody
    /// translated. Messages with no word outside their parameters ("{p0} · {p1}") are not counted.
    static let legitimatelyIdentical: [String: Set<String>] = [
        "de": ["page.approve-request.dt", "page.new-device-add-step.dt", "page.passkeys-title", "console.account-passkeys-title",
               "activity.passkey-p0", "console.recovery-dialog.label"],
        "fr": ["admin-views.session-sid", "console.account-actions-title", "console.account-sessions-title", "console.key-dialog.label"],
        "it": ["page.approve-request.dt", "page.invite-code-step.strong", "page.invite-email-term", "page.new-device-add-step.dt.3",
               "page.welcome.strong", "activity.passkey-p0", "admin-views.account-accountid", "admin-views.email"],
        "nl": ["admin-views.passkey-count", "console.accounts-title", "console.nav-accounts", "page.approve-request.dt",
               "page.invite-code-step.strong", "page.new-device-add-step.dt.3", "page.passkeys-title", "page.welcome.strong",
               "activity.passkey-p0", "console.account-passkeys-title"],
    ]

    /// Whether a message has a word of its own, outside its `{parameters}` and punctuation.
    static func hasWords(_ message: MessageCatalogue.Message) -> Bool {
        let texts: [String]
        switch message {
        case .text(let text): texts = [text]
        case .plural(let forms): texts = Array(forms.values)
        }
        return texts.contains { $0.replacing(/\{[A-Za-z0-9_]+\}/, with: "").contains(where: \.isLetter) }
    }

    @Test("every language translates every message: none missing, none still English but for a short list")
    func everyMessageTranslated() throws {
        let catalogues = try #require(Self.catalogues)
        let english = try #require(catalogues.byCode["en"]).messages
        #expect(english.count >= 600)
        var languages = 0
        for (code, catalogue) in catalogues.byCode where code != "en" && !catalogue.isPseudo {
            languages += 1
            let missing = Set(english.keys).subtracting(catalogue.messages.keys)
            #expect(missing.isEmpty, "\(code).json lacks \(missing.sorted())")
            let allowed = Self.legitimatelyIdentical[code] ?? []
            let untranslated = catalogue.messages.filter { key, message in
                key != "language.direction" && english[key] == message && Self.hasWords(message) && !allowed.contains(key)
            }.keys.sorted()
            #expect(untranslated.isEmpty, "\(code).json still has English for \(untranslated)")
            // The allow-list stays true: an entry whose message was translated since is taken off it.
            let stale = allowed.filter { catalogue.messages[$0] != english[$0] }.sorted()
            #expect(stale.isEmpty, "\(code): legitimatelyIdentical lists \(stale), which now differ from English")
        }
        #expect(languages >= 10)
    }

    @Test("the untranslated check can fail: a message left in English is caught, one of parameters only is not")
    func untranslatedCheckCanFail() {
        #expect(Self.hasWords(.text("Account created")))
        #expect(Self.hasWords(.plural(["one": "{count} passkey", "other": "{count} passkeys"])))
        #expect(!Self.hasWords(.text("{p0} · {p1}")))
        #expect(!Self.hasWords(.text("{title}. {reason}")))
    }

    @Test("GET /locale.json: the negotiated catalogue over English, with Content-Language and Vary")
    func endpoint() async throws {
        try await TestServer.run(TestServer.configuration { $0.defaultLanguage = "fr"; $0.brandName = "Example Corp" }) { api in
            let german = try await api.send(.get, "/locale.json", headers: [.acceptLanguage: "de-CH, en;q=0.5"])
            #expect(german.status == .ok)
            #expect(german.headers[.contentLanguage] == "de")
            #expect(german.headers[.vary] == "Accept-Language")
            let body = try #require(german.json)
            #expect(body["language"] as? String == "de")
            #expect(body["brand"] as? String == "Example Corp")
            let messages = try #require(body["messages"] as? [String: Any])
            #expect(messages["page.login"] as? String == "Mit einem Passkey anmelden")
            #expect(messages["error.rate_limited"] as? String != nil, "English under the language")
            #expect((body["languages"] as? [[String: String]])?.count ?? 0 >= 11)

            let arabic = try await api.send(.get, "/locale.json?language=ar", headers: [.acceptLanguage: "de"])
            #expect(arabic.json?["direction"] as? String == "rtl")
            let fallback = try await api.send(.get, "/locale.json?language=" + String(repeating: "x", count: 300), headers: [.acceptLanguage: "sv"])
            #expect(fallback.status == .ok)
            #expect(fallback.headers[.contentLanguage] == "fr", "the default language")
            let huge = try await api.send(.get, "/locale.json", headers: [.acceptLanguage: String(repeating: "zz-zz;q=0.1, ", count: 2_000)])
            #expect(huge.headers[.contentLanguage] == "fr")
        }
    }

    @Test("the pages the server renders itself (an OpenID Connect refusal) are in the request's language")
    func renderedPages() async throws {
        try await TestServer.run(TestServer.configuration { $0.oidc = true; $0.defaultLanguage = "fr" }) { api in
            let path = "/authorize?client_id=nobody&response_type=code&scope=openid&redirect_uri=https%3A%2F%2Fapp.example.com%2Fcb"
            let german = try await api.send(.get, path, headers: [.acceptLanguage: "de-DE, en;q=0.5"])
            #expect(german.status == .badRequest)
            #expect(german.text.contains(#"<html lang="de" dir="ltr">"#))
            #expect(german.text.contains("Diese Anmeldeanfrage kann nicht beantwortet werden"))
            let arabic = try await api.send(.get, path, headers: [.acceptLanguage: "ar"])
            #expect(arabic.text.contains(#"<html lang="ar" dir="rtl">"#))
            let fallback = try await api.send(.get, path, headers: [.acceptLanguage: "sv"])
            #expect(fallback.text.contains(#"<html lang="fr" dir="ltr">"#), "--default-language")
            #expect(fallback.text.contains("Cette demande de connexion ne peut pas aboutir"))
        }
    }
}
