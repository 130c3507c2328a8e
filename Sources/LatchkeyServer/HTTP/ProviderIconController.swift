import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI

/// `GET provider-icons/{aaguid}/{light.svg|dark.svg}`: the passkey providers' icons from the table,
/// served as files of this origin so that the page's `img-src 'self'` stays as it is (the table holds
/// them as `data:` URLs, which the policy would otherwise have to allow).
///
/// The SVGs come from a community list, so each answer carries its own policy that lets no script run
/// and loads nothing: opened directly rather than through `<img>`, an SVG is a document of this origin.
struct ProviderIconController: Sendable {
    let providers: PasskeyProviders

    static let headers: HTTPFields = {
        var fields: HTTPFields = [
            .contentType: "image/svg+xml",
            .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; sandbox",
            // The table changes only with a new release; a day is short enough for that.
            .cacheControl: "public, max-age=86400",
        ]
        if let nosniff = HTTPField.Name("X-Content-Type-Options") { fields[nosniff] = "nosniff" }
        return fields
    }()

    func register<Context: RequestContext>(on scope: some RouterMethods<Context>) {
        scope.get("provider-icons/:aaguid/:variant") { _, context in
            try icon(aaguid: context.parameters.get("aaguid"), variant: context.parameters.get("variant"))
        }
    }

    func icon(aaguid: String?, variant: String?) throws -> Response {
        guard let aaguid, let bytes = PasskeyProviders.bytes(uuid: aaguid) else {
            throw APIError(.invalidAAGUID, "The AAGUID in the path must be a UUID such as ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4.")
        }
        let dark: Bool
        switch variant {
        case "light.svg": dark = false
        case "dark.svg": dark = true
        default: throw APIError(.unknownIcon, "Icons are light.svg or dark.svg.")
        }
        guard let provider = providers.provider(aaguid: bytes) else {
            throw APIError(.unknownProvider, "No passkey provider in the table has this AAGUID.")
        }
        // A provider with one icon gets it for both backgrounds rather than none.
        guard let icon = dark ? (provider.iconDark ?? provider.iconLight) : (provider.iconLight ?? provider.iconDark) else {
            throw APIError(.noIcon, "The table has no icon for this passkey provider.")
        }
        return Response(status: .ok, headers: Self.headers, body: .init(byteBuffer: ByteBuffer(bytes: icon.svg)))
    }
}
