import HTTPTypes
import Hummingbird
import LatchkeyAPI

/// CORS for the provider's machine endpoints (`/oidc/token`, `/oidc/userinfo`, `/oidc/revoke`): a
/// single-page app that signs people in with PKCE calls them from its own origin, so the browser asks
/// first (a preflight: `OPTIONS` with `Access-Control-Request-Method`) and then lets the page read the
/// answer only if it names the page's origin. The origins allowed are those of the registered clients'
/// redirect URIs (Keycloak's and Pocket ID's "web origins"), from `OIDCClientFacts`: an origin is named
/// back, never `*`, and credentials are never allowed (these routes read no cookie; the client
/// authenticates itself). Discovery and the JWKS are public documents and carry `*` instead.
///
/// The preflight is a route of its own (`OPTIONS`, documented like every other); the answers of the other
/// methods get their headers from `middleware`, errors included, so that a refused request is readable by
/// the page that made it.
struct OIDCCrossOrigin: Sendable {
    let facts: OIDCClientFacts

    /// The headers a page may send (`Authorization` for Basic or Bearer, `Content-Type` for a form) and
    /// how long a browser may remember a preflight's answer (10 minutes; a removed client's origin is
    /// refused by the next preflight after that).
    static let allowedHeaders = "Authorization, Content-Type"
    static let maxAge = "600"

    /// Whether `origin` (an `Origin` header) is one of a registered client's redirect URIs' origins.
    func allows(_ origin: String) async throws -> Bool {
        try await facts.facts().webOrigins.contains(origin.lowercased())
    }

    /// The answer to `OPTIONS` on a route taking `methods`: 204 with the CORS headers for an allowed
    /// origin; 403 `origin_not_allowed` for another; without `Origin`, a plain 204 with `Allow` (not a
    /// preflight: nothing to allow).
    func preflight(_ request: Request, methods: String) async throws -> Response {
        var headers: HTTPFields = [.allow: "\(methods), OPTIONS", .vary: "Origin", .cacheControl: "no-store"]
        guard let origin = request.headers[.origin] else { return Response(status: .noContent, headers: headers) }
        guard try await allows(origin) else {
            throw APIError(.originNotAllowed, "This origin is not one of a registered client's redirect URIs, so its pages may not call this endpoint.")
        }
        headers[.accessControlAllowOrigin] = origin
        headers[.accessControlAllowMethods] = methods
        headers[.accessControlAllowHeaders] = Self.allowedHeaders
        headers[.accessControlMaxAge] = Self.maxAge
        return Response(status: .noContent, headers: headers)
    }

    /// Adds `Access-Control-Allow-Origin` (the request's own origin, when allowed) and `Vary: Origin` to
    /// every answer of the routes it is put on.
    struct Middleware<Context: RequestContext>: RouterMiddleware {
        let crossOrigin: OIDCCrossOrigin?

        func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
            var response: Response
            do {
                response = try await next(request, context)
            } catch let error as APIError {
                response = try error.response(from: request, context: context)
            }
            guard request.method != .options, let crossOrigin else { return response }
            response.headers[.vary] = "Origin"
            if let origin = request.headers[.origin], try await crossOrigin.allows(origin) {
                response.headers[.accessControlAllowOrigin] = origin
            }
            return response
        }
    }
}
