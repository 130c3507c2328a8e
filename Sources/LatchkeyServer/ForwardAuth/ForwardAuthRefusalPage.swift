import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The 403 page a person sees when a forward-auth rule refuses them: which site, and which groups may
/// open it (so they know whom to ask), or that nobody may. Caddy and Traefik show it as it is; nginx
/// shows its own 403 unless told to follow `Location` to Latchkey's page, which says the same
/// (docs/forward-auth.md). Plain HTML with the page's stylesheet on Latchkey's origin and no script;
/// every text in it is escaped (`HTMLText`).
enum ForwardAuthRefusalPage {
    static func response(host: String, groups: [String], signedIn: Bool, pageOrigin: String) -> Response {
        let reason = groups.isEmpty
            ? "Nobody may open \(host) through this server."
            : "Only members of \(groups.count == 1 ? "the group" : "one of the groups") \(groups.map { "“\($0)”" }.joined(separator: ", ")) may open \(host)."
        let next = signedIn
            ? "Your account is not in it. Ask the people who run this server to add you, then try again."
            : "Sign in with your passkey first."
        let html = """
            <!doctype html>
            <html lang="en">
            <head>
              <meta charset="utf-8">
              <meta name="viewport" content="width=device-width, initial-scale=1">
              <title>Not allowed — Latchkey</title>
              <link rel="stylesheet" href="\(HTMLText.escaped(pageOrigin))/style.css">
            </head>
            <body>
              <main id="main" class="forward-auth-refused" data-groups="\(HTMLText.escaped(groups.joined(separator: ",")))">
                <h1>You cannot open this site</h1>
                <p role="alert" id="forward-auth-reason">\(HTMLText.escaped(reason))</p>
                <p>\(HTMLText.escaped(next))</p>
                <p><a href="\(HTMLText.escaped(pageOrigin))/">Go to your Latchkey account</a></p>
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
