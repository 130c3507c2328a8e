import Foundation
import HTTPTypes
import Hummingbird

/// `GET /locale.json`: the page's words in the negotiated language (see `Catalogues.negotiate`) with
/// English under them for any key the language lacks, the language's name and direction, the shipped
/// languages for the picker and the service's name. Each language's answer is built once, at start.
struct LocaleController: Sendable {
    let catalogues: Catalogues
    let answers: [String: PageController.Asset]

    init(catalogues: Catalogues, brand: String, branding: Branding? = nil) throws {
        self.catalogues = catalogues
        let english = catalogues.byCode[Catalogues.english]?.messages ?? [:]
        let languages: [[String: String]] = catalogues.codes.compactMap { code in
            catalogues.byCode[code].map { ["code": code, "name": $0.name] }
        }
        var answers: [String: PageController.Asset] = [:]
        for (code, catalogue) in catalogues.byCode {
            var messages: [String: Any] = [:]
            for (key, message) in english.merging(catalogue.messages, uniquingKeysWith: { $1 }) {
                switch message {
                case .text(let text): messages[key] = text
                case .plural(let forms): messages[key] = forms
                }
            }
            let answer: [String: Any] = [
                "language": code, "direction": catalogue.direction, "brand": brand, "languages": languages, "messages": messages,
                "logo": branding?.logo != nil, "favicon": branding?.favicon != nil,
            ]
            let data = try JSONSerialization.data(withJSONObject: answer, options: [.sortedKeys, .withoutEscapingSlashes])
            answers[code] = PageController.Asset(data: data, contentType: "application/json; charset=utf-8")
        }
        self.answers = answers
    }

    /// At `path`: `/locale.json` for the page, `/admin/assets/locale.json` for the console (its `i18n.js`
    /// asks beside itself).
    func register<Context: RequestContext>(on scope: some RouterMethods<Context>, path: String = "/locale.json") {
        scope.get(RouterPath(stringLiteral: path)) { request, _ in
            let choice = APIQuery(request.uri).parameters["language"].map(String.init)
            let code = catalogues.negotiate(choice: choice, acceptLanguage: request.headers[.acceptLanguage])
            guard let asset = answers[code] ?? answers[Catalogues.english] else { return Response(status: .notFound) }
            var response = PageController.response(asset, request: request)
            response.headers[.vary] = "Accept-Language"
            response.headers[.contentLanguage] = code
            return response
        }
    }
}
