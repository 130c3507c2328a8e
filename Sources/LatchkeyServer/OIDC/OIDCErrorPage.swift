import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import NIOCore

/// The page a person sees when an authorization or logout request cannot be sent back to the app that
/// made it — an unknown client, a redirect URI the client did not register: saying so here, and never
/// redirecting, is what keeps Latchkey from being an open redirector (Core §3.1.2.6, RFC 9700 §4.11).
/// Plain HTML with the page's stylesheet and no script; the message is escaped.
enum OIDCErrorPage {
    static func response(_ error: APIError) -> Response {
        let html = """
            <!doctype html>
            <html lang="en">
            <head>
              <meta charset="utf-8">
              <meta name="viewport" content="width=device-width, initial-scale=1">
              <title>Sign-in request refused — Latchkey</title>
              <link rel="stylesheet" href="/style.css">
            </head>
            <body>
              <main id="main" class="oidc-error" data-error="\(HTMLText.escaped(error.code))">
                <h1>This sign-in request cannot be answered</h1>
                <p role="alert">\(HTMLText.escaped(error.message))</p>
                <p><a href="/">Go to your Latchkey account</a></p>
              </main>
            </body>
            </html>

            """
        let headers = PageController.renderedPageSecurityHeaders
        let status: HTTPResponse.Status = error.kind == .forbidden ? .forbidden : .badRequest
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: html)))
    }
}
