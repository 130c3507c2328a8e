import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import NIOCore
import WebAuthn

/// The admin console (`/admin`): its page and scripts, served with the page's strict policy (scripts and
/// styles from this origin only, no inline script, no framing), and its session's routes under
/// `/admin/api/session` — a passkey assertion in, the console's own cookie out. Everything else the
/// console does goes through the admin API (`/api/admin/…`), which admits the console's cookie
/// (`AdminKeyMiddleware`). Mounted beside the admin API: with `--admin-listen`, on that address only.
struct ConsoleController: Sendable {
    let console: ConsoleService
    let assets: [String: PageController.Asset]
    let trustForwardedFor: Bool

    /// The console's files, read once at start-up (the page's shared modules and stylesheet among them).
    static func load(console: ConsoleService, trustForwardedFor: Bool) throws -> ConsoleController {
        let html = "text/html; charset=utf-8", js = "text/javascript; charset=utf-8", css = "text/css; charset=utf-8"
        let files: [(route: String, name: String, ext: String, type: String)] = [
            ("/admin", "admin", "html", html),
            // The first administrator's link opens the same page on its setup view (`/admin/setup#CODE`).
            ("/admin/setup", "admin", "html", html),
            ("/admin/assets/admin.js", "admin", "js", js),
            ("/admin/assets/admin-views.js", "admin-views", "js", js),
            ("/admin/assets/api.js", "api", "js", js),
            ("/admin/assets/ui.js", "ui", "js", js),
            // The page's words: api.js and ui.js import it; it asks for `locale.json` beside itself (below).
            ("/admin/assets/i18n.js", "i18n", "js", js),
            ("/admin/assets/webauthn.js", "webauthn", "js", js),
            ("/admin/assets/style.css", "style", "css", css),
            ("/admin/assets/admin.css", "admin", "css", css),
        ]
        var assets: [String: PageController.Asset] = [:]
        for file in files {
            guard let url = Bundle.module.url(forResource: file.name, withExtension: file.ext, subdirectory: "Public") else {
                throw ServerConfiguration.Invalid(description: "the admin console's file \(file.name).\(file.ext) is missing from the installation")
            }
            assets[file.route] = PageController.Asset(data: try Data(contentsOf: url), contentType: file.type)
        }
        return ConsoleController(console: console, assets: assets, trustForwardedFor: trustForwardedFor)
    }

    func register<Context: RequestContext>(on group: RouterGroup<Context>) {
        for (route, asset) in assets {
            // As the page's files: revalidated every time (no-cache, the ETag). The page holds no admin data;
            // that comes from the admin API, whose answers are no-store.
            group.get(RouterPath(stringLiteral: route)) { request, _ in PageController.response(asset, request: request) }
        }
        group.post("/admin/api/session/options") { request, _ in
            if console.token(of: request) != nil { try console.checkOrigin(request) }
            return OptionsResponse(publicKey: console.options())
        }
        group.post("/admin/api/session/verify") { request, context in
            try console.checkOrigin(request)
            let body = try await RequestBody.decode(ConsoleVerifyRequest.self, from: request)
            let origin = AuditOrigin(request, context: context, actor: "anonymous", trustForwardedFor: trustForwardedFor)
            let (session, token) = try await console.signIn(body, presented: console.token(of: request), origin: origin)
            var headers: HTTPFields = [.cacheControl: "no-store"]
            if let token { headers[.setCookie] = ConsoleCookie.set(token, secure: console.secureCookies) }
            return APIReply(headers: headers, body: session)
        }
        group.get("/admin/api/session") { request, _ in
            guard let session = try await console.session(of: request) else {
                throw APIError(.notAuthenticated, "Sign in to the console with your passkey.")
            }
            return APIReply(headers: [.cacheControl: "no-store"], body: ConsoleService.json(session))
        }
        group.delete("/admin/api/session") { request, _ in
            if console.token(of: request) != nil { try console.checkOrigin(request) }
            try await console.signOut(request)
            return NoContent(headers: [.setCookie: ConsoleCookie.clear(secure: console.secureCookies)])
        }
    }
}
