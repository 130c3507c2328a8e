import Hummingbird

/// Files other systems fetch from the RP's domain: Apple's app-site association (so an iOS app may use
/// this RP's passkeys) and WebAuthn related origins; plus liveness for load balancers.
struct WellKnownController: Sendable {
    let configuration: ServerConfiguration

    struct AppleAppSiteAssociation: Encodable {
        struct WebCredentials: Encodable { let apps: [String] }
        let webcredentials: WebCredentials
    }

    struct RelatedOrigins: Encodable { let origins: [String] }

    struct Health: Encodable { let status: String }

    func register(on router: Router<APIRequestContext>) {
        router.get("/.well-known/apple-app-site-association") { _, _ in
            try JSONResponse.make(.ok, AppleAppSiteAssociation(webcredentials: .init(apps: configuration.appleAppIds)))
        }
        router.get("/.well-known/webauthn") { _, _ in
            try JSONResponse.make(.ok, RelatedOrigins(origins: configuration.origins))
        }
        router.get("/healthz") { _, _ in try JSONResponse.make(.ok, Health(status: "ok")) }
    }
}
