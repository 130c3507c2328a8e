import Foundation
import LatchkeyAPI

/// An OpenID Connect client's logo, as an operator gives it (`latchkey admin clients add|update --logo FILE`,
/// the admin API's `logo`: the file's bytes in base64, "" to remove it). Only a PNG or an SVG, the type
/// read from the bytes — the name or a type the caller claims proves nothing — and at most
/// `maximumBytes`: it is stored in the client's row and sent to every person asked for consent. It is
/// served as `--brand-logo` is (`BrandController.imagePolicy`: a sandbox that runs no script of an SVG
/// opened on its own) and shown through `<img>`, where a browser runs none anyway.
struct OIDCClientLogo: Sendable, Equatable {
    let data: Data
    let contentType: String

    static let maximumBytes = 32 * 1024
    static let allowedTypes = ["image/png", "image/svg+xml"]
    static let invalid = APIError(
        .invalidField, "logo must be a PNG or SVG image of at most 32 KiB, in base64 (--logo FILE), or \"\" to remove it (--no-logo).")

    /// The logo of a request's `logo`; nil for "" (remove it). The size is checked on the text before it is
    /// decoded, then on the bytes.
    static func read(base64 text: String) throws(APIError) -> OIDCClientLogo? {
        if text.isEmpty { return nil }
        guard text.utf8.count <= (maximumBytes / 3 + 1) * 4 + 4, let data = Data(base64Encoded: text), !data.isEmpty,
              data.count <= maximumBytes, let type = Branding.imageType(of: data), allowedTypes.contains(type)
        else { throw invalid }
        return OIDCClientLogo(data: data, contentType: type)
    }

    /// Where it is served: `/oidc/logo/{clientId}` (a client id is URL-safe by its rule, `OIDCClientRules.clientId`).
    static func path(clientId: String) -> String { "/oidc/logo/\(clientId)" }
}
