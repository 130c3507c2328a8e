import Hummingbird

extension Latchkey {
    /// Adds the compatibility APIs named in `configuration.compatibility` (none by default) to `router`,
    /// at the paths their clients call: PassKeysDemo at `configuration.passKeysDemoPath`, Hanko's demo at
    /// the root. They share the API's rate limit and every service with it (`CompatibilityAPI`).
    /// - Parameter router: the application's router; the routes go at its root, where the clients look.
    public func mountCompatibility<Context: LatchkeyRequestContext>(on router: Router<Context>) {
        mountCompatibility(on: router, answeringErrors: true)
    }

    /// `answeringErrors` as in `mount`: false when the router already has an error middleware.
    func mountCompatibility<Context: LatchkeyRequestContext>(on router: Router<Context>, answeringErrors: Bool) {
        guard !configuration.compatibility.isEmpty else { return }
        let group = router.group()
        if answeringErrors { group.add(middleware: ErrorAndLogMiddleware<Context>()) }
        if let limit: RateLimitMiddleware<Context> = rateLimitMiddleware() { group.add(middleware: limit) }
        if configuration.compatibility.contains(.passKeysDemo) {
            PassKeysDemoController(ceremonies: ceremonies, sessions: sessions, store: store, configuration: configuration, now: now)
                .register(on: group)
        }
        if configuration.compatibility.contains(.hanko) {
            HankoController(ceremonies: ceremonies, sessions: sessions, store: store, configuration: configuration).register(on: group)
        }
    }
}
