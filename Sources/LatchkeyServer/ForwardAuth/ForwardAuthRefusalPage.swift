import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The 403 page a person sees when a forward-auth rule refuses them: which site, and which groups may
/// open it (so they know whom to ask), or that nobody may. Caddy and Traefik show it as it is; nginx
/// shows its own 403 unless told to follow `Location` to Latchkey's page, which says the same
/// (docs/forward-auth.md). Plain HTML with the page's stylesheet on Latchkey's origin and no script;
/// every text in it is escaped (`HTMLText`). In the language of the request's Accept-Language (else
/// `--default-language`), its words from the catalogue.
enum ForwardAuthRefusalPage {
    static func response(
        host: String, groups: [String], signedIn: Bool, pageOrigin: String,
        acceptLanguage: String? = nil, defaultLanguage: String = Catalogues.english, brand: String = "Latchkey"
    ) -> Response {
        let words = Catalogues.words(acceptLanguage: acceptLanguage, fallback: defaultLanguage)
        let named = groups.map { "“\($0)”" }.joined(separator: ", ")
        let reason = groups.isEmpty
            ? words.say("forward-auth.nobody-may-open-host-through", ["host": host])
            : words.say("forward-auth-refused.members", [
                "groups": named, "host": host,
                "which": words.say(groups.count == 1 ? "forward-auth.the-group" : "forward-auth.one-of-the-groups", [:]),
            ])
        let next = words.say(signedIn ? "forward-auth-refused.not-in-it" : "forward-auth-refused.sign-in-first", [:])
        let html = """
            <!doctype html>
            <html lang="\(HTMLText.escaped(words.language))" dir="\(words.direction)">
            <head>
              <meta charset="utf-8">
              <meta name="viewport" content="width=device-width, initial-scale=1">
              <title>\(HTMLText.escaped(words.say("forward-auth-refused.title", ["brand": brand])))</title>
              <link rel="stylesheet" href="\(HTMLText.escaped(pageOrigin))/style.css">
            </head>
            <body>
              <main id="main" class="forward-auth-refused" data-groups="\(HTMLText.escaped(groups.joined(separator: ",")))">
                <h1>\(HTMLText.escaped(words.say("forward-auth.you-cannot-open-this-site", [:])))</h1>
                <p role="alert" id="forward-auth-reason">\(HTMLText.escaped(reason))</p>
                <p>\(HTMLText.escaped(next))</p>
                <p><a href="\(HTMLText.escaped(pageOrigin))/">\(HTMLText.escaped(words.say("page.forward-auth.a", ["brand": brand])))</a></p>
              </main>
            </body>
            </html>

            """
        var headers = PageController.renderedPageSecurityHeaders
        // The stylesheet is Latchkey's, on another origin than the app's the page is shown on.
        headers[.contentSecurityPolicy] = "default-src 'none'; style-src \(pageOrigin); base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        return Response(status: .forbidden, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
