import Foundation
import Hummingbird
import Logging
import Metrics
import Prometheus

/// A running Latchkey: the database (migrated), the services, and the Hummingbird application that
/// serves the API. Tests build the same thing and drive it in-process.
public struct LatchkeyApplication: Sendable {
    public let application: Application<RouterResponder<APIRequestContext>>
    let store: Store
}

/// Opens the database, applies migrations, and wires routes to controllers. Dependencies are passed in;
/// nothing is global.
public func buildApplication(
    configuration: ServerConfiguration, logger: Logger = Logger(label: "latchkey"),
    now: @escaping @Sendable () -> Date = { Date() }
) async throws -> LatchkeyApplication {
    try configuration.validate()
    // The pool reports each failed connection attempt itself; requests that fail because of it are
    // logged by the error middleware, so the pool only speaks about critical trouble.
    var poolLogger = logger
    poolLogger.logLevel = .critical
    let connections: DatabaseConnections
    do {
        connections = try DatabaseConnections.open(configuration.database, limits: configuration.databaseLimits, logger: poolLogger)
    } catch {
        throw ServerConfiguration.Invalid(description: "the database URL \(configuration.database) cannot be used")
    }
    do {
        try await Migrations.run(on: connections)
    } catch {
        try? await connections.shutdown()
        throw ServerConfiguration.Invalid(
            description: "the database \(configuration.database) cannot be opened or migrated (\(DatabaseFailure.summary(error)))")
    }
    let store = Store(connections: connections)
    // One key for every instance on this database, made by whichever starts first.
    let sealer = try ChallengeSealer(
        key: try await store.serverKey(named: "challenge-seal", make: { RandomBytes.make(ChallengeSealer.keyByteCount) }),
        rpId: configuration.rpId)
    let sessions = SessionService(store: store, ttl: configuration.sessionTTL, now: now)
    let authentication = RequestAuthentication(
        sessions: sessions, origins: configuration.relyingParty.origins, secureCookies: configuration.secureCookies)
    let registry = PrometheusCollectorRegistry()
    let metricsFactory = PrometheusMetricsFactory(registry: registry)
    let metrics = CeremonyMetrics(factory: metricsFactory)
    let ceremonies = CeremonyService(store: store, sealer: sealer, configuration: configuration, sessions: sessions, metrics: metrics, now: now)

    let router = Router(context: APIRequestContext.self)
    router.add(middleware: ErrorAndLogMiddleware())
    // The limiter is the API group's middleware, so it applies to every request the router resolves to
    // an API route, however its path is spelled (`//api/…` reaches the same routes).
    let api = router.group("api")
    if configuration.rateLimit > 0 {
        let shared = configuration.effectiveRateLimitScope == .database
            ? SharedRateLimit(store: store, perMinute: configuration.rateLimit, logger: logger) : nil
        api.add(middleware: RateLimitMiddleware(
            limiter: RateLimiter(requestsPerMinute: configuration.rateLimit), shared: shared, trustForwardedFor: configuration.trustForwardedFor,
            refused: Counter(label: "latchkey_rate_limited_total", factory: metricsFactory)))
    }
    CeremonyController(ceremonies: ceremonies, authentication: authentication, configuration: configuration).register(on: api)
    AccountController(store: store, sessions: sessions, authentication: authentication, configuration: configuration, now: now)
        .register(on: api)
    let issuer = configuration.accessTokens ? AccessTokenIssuer(
        store: store, settings: .init(
            ttl: configuration.accessTokenTTL, keyLifetime: configuration.signingKeyLifetime,
            issuer: configuration.effectiveTokenIssuer, audience: configuration.tokenAudience),
        now: now) : nil
    TokenController(issuer: issuer, sessions: sessions, authentication: authentication, introspectionSecret: configuration.introspectionSecret)
        .register(api: api, router: router)
    WellKnownController(configuration: configuration).register(on: router)
    router.get("/metrics") { _, _ in
        Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
    }
    try PageController.load().register(on: router)
    try OpenAPIController.load().register(on: router) // last: it checks every route above against openapi.yaml

    let application = Application(
        router: router,
        server: .pinnedHTTP1(idleTimeout: configuration.idleTimeAmount, limiter: configuration.connectionLimiter),
        configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: "Latchkey"),
        services: [Housekeeping(
            store: store, connections: connections, logger: logger, interval: configuration.housekeepingInterval,
            runs: Counter(label: "latchkey_housekeeping_runs_total", factory: metricsFactory))],
        eventLoopGroupProvider: .shared(ServerEventLoops.group(threads: configuration.eventLoopThreads)),
        logger: logger)
    return LatchkeyApplication(application: application, store: store)
}
