import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import NIOCore

/// The page a person sees when an authorization or logout request cannot be sent back to the app that
/// made it — an unknown client, a redirect URI the client did not register: saying so here, and never
/// redirecting, is what keeps Latchkey from being an open redirector (Core §3.1.2.6, RFC 9700 §4.11).
/// Plain HTML with the page's stylesheet and no script; the message is escaped. In the language of the
/// request's Accept-Language (else `--default-language`): its words from the catalogue (`oidc-error.*`),
/// the reason the API's English message unless the catalogue has a sentence for the error's code.
enum OIDCErrorPage {
    static func response(_ error: APIError, acceptLanguage: String? = nil, defaultLanguage: String = Catalogues.english, brand: String = "Latchkey") -> Response {
        let words = Catalogues.words(acceptLanguage: acceptLanguage, fallback: defaultLanguage)
        let sentence = words.say("error.\(error.code)", [:])
        let reason = sentence == "error.\(error.code)" ? error.message : sentence
        let html = """
            <!doctype html>
            <html lang="\(HTMLText.escaped(words.language))" dir="\(words.direction)">
            <head>
              <meta charset="utf-8">
              <meta name="viewport" content="width=device-width, initial-scale=1">
              <title>\(HTMLText.escaped(words.say("oidc-error.title", ["brand": brand])))</title>
              <link rel="stylesheet" href="/style.css">
            </head>
            <body>
              <main id="main" class="oidc-error" data-error="\(HTMLText.escaped(error.code))">
                <h1>\(HTMLText.escaped(words.say("oidc-error.heading", [:])))</h1>
                <p role="alert">\(HTMLText.escaped(reason))</p>
                <p><a href="/">\(HTMLText.escaped(words.say("page.oidc-problem-step.a", ["brand": brand])))</a></p>
              </main>
            </body>
            </html>

            """
        let headers = PageController.renderedPageSecurityHeaders
        let status: HTTPResponse.Status = error.kind == .forbidden ? .forbidden : .badRequest
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
