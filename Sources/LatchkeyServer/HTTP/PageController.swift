import Foundation
import HTTPTypes
import Hummingbird

/// The web page: static files (an HTML page, a stylesheet, and the script as a few ES modules) shipped as the target's resources, read once at start-up, served
/// with a strict Content-Security-Policy (scripts and styles only from this origin, no inline script, no
/// framing) and cache headers that let the browser revalidate cheaply.
struct PageController: Sendable {
    struct Asset: Sendable {
        let body: ByteBuffer
        let contentType: String
        let etag: String
    }

    let assets: [String: Asset]

    static let securityHeaders: HTTPFields = {
        var fields: HTTPFields = [
            .contentSecurityPolicy: "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; "
                + "base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
        ]
        let extra = [("X-Content-Type-Options", "nosniff"), ("Referrer-Policy", "no-referrer"), ("Cross-Origin-Opener-Policy", "same-origin")]
        for (name, value) in extra {
            if let field = HTTPField.Name(name) { fields[field] = value }
        }
        return fields
    }()

    /// The headers of a page the server renders with a caller's text in it (the OpenID Connect error
    /// page, Hanko's `/content`): the page's own, with a policy that allows nothing but the stylesheet —
    /// no script at all, no form, no image, no `<base>` — so that an escaping defect in the future cannot
    /// become a script or a form (review 4, S4-1). (No policy stops a `<meta http-equiv=refresh>`: that is
    /// `HTMLText`'s job alone.)
    static let renderedPageSecurityHeaders: HTTPFields = {
        var fields = securityHeaders
        fields[.contentSecurityPolicy] = "default-src 'none'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
        fields[.contentType] = "text/html; charset=utf-8"
        fields[.cacheControl] = "no-store"
        return fields
    }()

    /// Loads the files; a missing resource bundle is a packaging error reported at start-up.
    static func load() throws -> PageController {
        let files: [(route: String, name: String, ext: String, type: String)] = [
            ("/", "index", "html", "text/html; charset=utf-8"),
            // The same page, opened on its "Recover your account" view (a recovery link is `/recover#CODE`).
            ("/recover", "index", "html", "text/html; charset=utf-8"),
            // … and on confirming an email address (the link mailed is `/verify-email#TOKEN`).
            ("/verify-email", "index", "html", "text/html; charset=utf-8"),
            // … and on an invitation (its link is `/invite#CODE`).
            ("/invite", "index", "html", "text/html; charset=utf-8"),
            // … and on signing in for an app behind a proxy (forward authentication: `/forward-auth?rd=URL`).
            ("/forward-auth", "index", "html", "text/html; charset=utf-8"),
            ("/forward-auth.js", "forward-auth", "js", "text/javascript; charset=utf-8"),
            ("/app.js", "app", "js", "text/javascript; charset=utf-8"),
            ("/i18n.js", "i18n", "js", "text/javascript; charset=utf-8"),
            ("/api.js", "api", "js", "text/javascript; charset=utf-8"),
            ("/ui.js", "ui", "js", "text/javascript; charset=utf-8"),
            ("/webauthn.js", "webauthn", "js", "text/javascript; charset=utf-8"),
            ("/passkey-list.js", "passkey-list", "js", "text/javascript; charset=utf-8"),
            ("/app-list.js", "app-list", "js", "text/javascript; charset=utf-8"),
            ("/activity.js", "activity", "js", "text/javascript; charset=utf-8"),
            ("/recovery.js", "recovery", "js", "text/javascript; charset=utf-8"),
            ("/invitation.js", "invitation", "js", "text/javascript; charset=utf-8"),
            ("/email.js", "email", "js", "text/javascript; charset=utf-8"),
            ("/device-approval.js", "device-approval", "js", "text/javascript; charset=utf-8"),
            ("/restricted-passkey.js", "restricted-passkey", "js", "text/javascript; charset=utf-8"),
            ("/oidc.js", "oidc", "js", "text/javascript; charset=utf-8"),
            ("/scopes.js", "scopes", "js", "text/javascript; charset=utf-8"),
            ("/style.css", "style", "css", "text/css; charset=utf-8"),
        ]
        var assets: [String: Asset] = [:]
        for file in files {
            guard let url = Bundle.module.url(forResource: file.name, withExtension: file.ext, subdirectory: "Public") else {
                throw ServerConfiguration.Invalid(description: "the web page's file \(file.name).\(file.ext) is missing from the installation")
            }
            let data = try Data(contentsOf: url)
            let digest = data.reduce(into: UInt64(14_695_981_039_346_656_037)) { $0 = ($0 ^ UInt64($1)) &* 1_099_511_628_211 }
            assets[file.route] = Asset(body: ByteBuffer(bytes: data), contentType: file.type, etag: "\"\(String(digest, radix: 16))\"")
        }
        return PageController(assets: assets)
    }

    /// Adds the files to `scope` (the root, or the group of the prefix an application mounted Latchkey
    /// at). The page's own links are relative, so under a prefix it must be opened as `/<prefix>/`: the
    /// bare `/<prefix>` is redirected there.
    func register<Context: RequestContext>(on scope: some RouterMethods<Context>, prefix: String = "") {
        for (route, asset) in assets {
            scope.get(RouterPath(stringLiteral: route)) { request, _ in
                if route == "/", !prefix.isEmpty, !request.uri.path.hasSuffix("/") {
                    return Response(status: .permanentRedirect, headers: [.location: request.uri.path + "/"])
                }
                return Self.response(asset, request: request)
            }
        }
    }

    static func response(_ asset: Asset, request: Request) -> Response {
        var headers = securityHeaders
        headers[.contentType] = asset.contentType
        headers[.eTag] = asset.etag
        // Always revalidate: a new release must reach the browser at once; the ETag makes it cheap.
        headers[.cacheControl] = "no-cache"
        if request.headers[.ifNoneMatch] == asset.etag {
            return Response(status: .notModified, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: asset.body))
    }
}
