import Hummingbird
import LatchkeyAPI

/// Files other systems fetch from the RP's domain: Apple's app-site association (so an iOS app may use
/// this RP's passkeys), Android's Digital Asset Links (the same for an Android app) and WebAuthn related
/// origins. (`latchkey serve`'s `/healthz` is in `buildApplication`:
/// an application that embeds Latchkey has its own.)
struct WellKnownController: Sendable {
    let configuration: ServerConfiguration

    struct AppleAppSiteAssociation: APIResponseBody {
        struct WebCredentials: Encodable { let apps: [String] }
        let webcredentials: WebCredentials
    }

    struct RelatedOrigins: APIResponseBody { let origins: [String] }

    /// One statement of `assetlinks.json`, in the shape Google's Digital Asset Links documents.
    struct AssetLinksStatement: Encodable {
        struct Target: Encodable {
            let namespace: String
            let package_name: String
            let sha256_cert_fingerprints: [String]
        }

        let relation: [String]
        let target: Target
    }

    /// The relations Credential Manager checks before an app may use the site's passkeys (and passwords).
    static let androidRelations = ["delegate_permission/common.handle_all_urls", "delegate_permission/common.get_login_creds"]

    /// A statement per package, in the order first given, with every fingerprint given for it.
    static func assetLinks(_ apps: [AndroidApp]) -> [AssetLinksStatement] {
        var packages: [String] = []
        var fingerprints: [String: [String]] = [:]
        for app in apps {
            if fingerprints[app.packageName] == nil { packages.append(app.packageName) }
            fingerprints[app.packageName, default: []].append(app.fingerprintText)
        }
        return packages.map { package in
            AssetLinksStatement(
                relation: androidRelations,
                target: .init(namespace: "android_app", package_name: package, sha256_cert_fingerprints: fingerprints[package] ?? []))
        }
    }


    func register<Context: LatchkeyRequestContext>(on router: some RouterMethods<Context>) {
        router.get("/.well-known/apple-app-site-association") { _, _ in
            AppleAppSiteAssociation(webcredentials: .init(apps: configuration.appleAppIds))
        }
        router.get("/.well-known/assetlinks.json") { _, _ in
            guard !configuration.androidApps.isEmpty else {
                throw APIError(.notEnabled, "No Android app is configured on this server (latchkey serve --android-app).")
            }
            return APIReply(headers: [.cacheControl: "public, max-age=3600"], body: JSONArrayBody(elements: Self.assetLinks(configuration.androidApps)))
        }
        router.get("/.well-known/webauthn") { _, _ in
            RelatedOrigins(origins: configuration.origins)
        }
    }
}
