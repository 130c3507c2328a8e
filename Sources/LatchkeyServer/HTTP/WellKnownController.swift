import Hummingbird

/// Files other systems fetch from the RP's domain: Apple's app-site association (so an iOS app may use
/// this RP's passkeys) and WebAuthn related origins. (`latchkey serve`'s `/healthz` is in `buildApplication`:
/// an application that embeds Latchkey has its own.)
struct WellKnownController: Sendable {
    let configuration: ServerConfiguration

    struct AppleAppSiteAssociation: Encodable {
        struct WebCredentials: Encodable { let apps: [String] }
        let webcredentials: WebCredentials
    }

    struct RelatedOrigins: Encodable { let origins: [String] }


    func register<Context: LatchkeyRequestContext>(on router: some RouterMethods<Context>) {
        router.get("/.well-known/apple-app-site-association") { _, _ in
            try JSONResponse.make(.ok, AppleAppSiteAssociation(webcredentials: .init(apps: configuration.appleAppIds)))
        }
        router.get("/.well-known/webauthn") { _, _ in
            try JSONResponse.make(.ok, RelatedOrigins(origins: configuration.origins))
        }
    }
}
