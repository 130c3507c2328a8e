import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI

/// The brand's files: `/brand.css` (always: empty of rules when nothing is branded), `/brand/logo` and
/// `/brand/favicon` (404 `not_enabled` when not set). An SVG the operator gave is served as an image with a policy
/// that allows nothing — no script, no style from elsewhere, a sandbox — so that opened on its own it
/// cannot run anything; the page shows it through `<img>`, where a browser runs no script anyway.
struct BrandController: Sendable {
    let stylesheet: PageController.Asset
    let logo: PageController.Asset?
    let favicon: PageController.Asset?

    static let imagePolicy = "default-src 'none'; style-src 'unsafe-inline'; sandbox"

    init(branding: Branding) {
        stylesheet = PageController.Asset(data: Data(branding.css.utf8), contentType: "text/css; charset=utf-8")
        logo = branding.logo.map { PageController.Asset(data: $0.data, contentType: $0.contentType) }
        favicon = branding.favicon.map { PageController.Asset(data: $0.data, contentType: $0.contentType) }
    }

    /// Under `prefix`: "" for the page, `/admin/assets` for the console (whose files sit there).
    func register<Context: RequestContext>(on scope: some RouterMethods<Context>, prefix: String = "") {
        scope.get(RouterPath(stringLiteral: prefix + "/brand.css")) { request, _ in PageController.response(stylesheet, request: request) }
        for (route, asset) in [("/brand/logo", logo), ("/brand/favicon", favicon)] {
            scope.get(RouterPath(stringLiteral: prefix + route)) { request, _ in
                guard let asset else { throw APIError(.notEnabled, "No \(route == "/brand/logo" ? "--brand-logo" : "--brand-favicon") is set.") }
                var response = PageController.response(asset, request: request)
                response.headers[.contentSecurityPolicy] = Self.imagePolicy
                return response
            }
        }
    }
}
