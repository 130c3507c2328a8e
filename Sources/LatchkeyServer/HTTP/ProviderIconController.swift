import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI

/// `GET provider-icons/{aaguid}/{light.svg|dark.svg}`: the passkey providers' icons from the table,
/// served as files of this origin so that the page's `img-src 'self'` stays as it is (the table holds
/// them as `data:` URLs, which the policy would otherwise have to allow). `GET provider-icons/{aaguid}/metadata`:
/// the FIDO metadata's icon for the AAGUID (PNG, WebP or SVG, as `MetadataIcon` checked it), for the
/// providers the table has no icon for.
///
/// The SVGs come from a community list or a metadata BLOB, so each answer carries its own policy that
/// lets no script run and loads nothing (opened directly rather than through `<img>`, an SVG is a
/// document of this origin), its exact `Content-Type`, and `nosniff`.
struct ProviderIconController: Sendable {
    let providers: PasskeyProviders
    let store: Store

    static let headers = iconHeaders(contentType: "image/svg+xml", cache: "public, max-age=86400")

    /// The table changes only with a new release (a day is short enough for that); the metadata with
    /// every BLOB the operator loads.
    static func iconHeaders(contentType: String, cache: String) -> HTTPFields {
        var fields: HTTPFields = [
            .contentType: contentType,
            .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'; sandbox",
            .cacheControl: cache,
        ]
        if let nosniff = HTTPField.Name("X-Content-Type-Options") { fields[nosniff] = "nosniff" }
        return fields
    }

    func register<Context: RequestContext>(on scope: some RouterMethods<Context>) {
        scope.get("provider-icons/:aaguid/:variant") { _, context in
            let (aaguid, variant) = (context.parameters.get("aaguid"), context.parameters.get("variant"))
            if variant == "metadata" { return try await metadataIcon(aaguid: aaguid) }
            return try icon(aaguid: aaguid, variant: variant)
        }
    }

    func metadataIcon(aaguid: String?) async throws -> Response {
        guard let aaguid, let bytes = PasskeyProviders.bytes(uuid: aaguid) else {
            throw APIError(.invalidAAGUID, "The AAGUID in the path must be a UUID such as ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4.")
        }
        guard let record = try await store.metadata.entry(aaguid: bytes) else {
            throw APIError(.unknownProvider, "The FIDO metadata loaded here has no authenticator with this AAGUID.")
        }
        guard let icon = record.icon.flatMap(MetadataIcon.init(dataURL:)) else {
            throw APIError(.noIcon, "The FIDO metadata has no icon for this authenticator that can be served: only PNG, WebP or SVG of at most 64 KiB.")
        }
        return Response(
            status: .ok, headers: Self.iconHeaders(contentType: icon.mediaType, cache: "public, max-age=3600"),
            body: .init(byteBuffer: ByteBuffer(bytes: icon.bytes)))
    }

    func icon(aaguid: String?, variant: String?) throws -> Response {
        guard let aaguid, let bytes = PasskeyProviders.bytes(uuid: aaguid) else {
            throw APIError(.invalidAAGUID, "The AAGUID in the path must be a UUID such as ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4.")
        }
        let dark: Bool
        switch variant {
        case "light.svg": dark = false
        case "dark.svg": dark = true
        default: throw APIError(.unknownIcon, "Icons are light.svg, dark.svg or metadata.")
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
