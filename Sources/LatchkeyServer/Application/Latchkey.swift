import Crypto
import Foundation
import Hummingbird
import LatchkeyDatabase
import Logging
import Metrics
import NIOCore
import NIOPosix
import Prometheus
import ServiceLifecycle

/// Latchkey inside another Hummingbird application: the database (opened and migrated), the ceremonies,
/// sessions and tokens, ready to be mounted on the application's own router.
///
/// ```swift
/// let latchkey = try await Latchkey.open(configuration: configuration, logger: logger)
/// let router = Router(context: AppContext.self)
/// try latchkey.mount(on: router, at: "auth")                 // /auth/api/login/options, …
/// router.group("notes")
///     .add(middleware: latchkey.authentication())           // 401 without a session
///     .get { _, context in context.latchkeyAccount!.id … }
/// let app = Application(router: router, services: latchkey.services)
/// ```
/// `latchkey serve` is built the same way (`buildApplication`), with everything mounted at the root.
public struct Latchkey: Sendable {
    public let configuration: ServerConfiguration
    let store: Store
    let connections: DatabaseConnections
    let sessions: SessionService
    let authenticationRules: RequestAuthentication
    let ceremonies: CeremonyService
    let issuer: AccessTokenIssuer?
    /// The OpenID Connect provider, with `--oidc`.
    let oidc: OIDCProvider?
    let providers: PasskeyProviders
    /// One limiter for every rate-limited route (the API and, when on, the compatibility APIs), so a
    /// client has one budget however it calls.
    let rateLimiter: RateLimiter
    /// The cluster's bucket behind `rateLimiter` (instances on one PostgreSQL), with its leases.
    let sharedRateLimit: SharedRateLimit?
    /// Sending mail (`--smtp-url`): nil without it.
    let mail: EmailService.Mail?
    let registry: PrometheusCollectorRegistry
    let metricsFactory: PrometheusMetricsFactory
    let logger: Logger
    let now: @Sendable () -> Date

    /// Opens the database named in `configuration` (SQLite or PostgreSQL), applies its migrations and
    /// loads the server keys; a bad configuration throws `ServerConfiguration.Invalid` with one sentence.
    public static func open(
        configuration: ServerConfiguration, logger: Logger = Logger(label: "latchkey"), now: @escaping @Sendable () -> Date = { Date() }
    ) async throws -> Latchkey {
        try await open(configuration: configuration, logger: logger, now: now, eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
    }

    /// `eventLoopGroup`: where the PostgreSQL connections live — the loops the application serves on, so
    /// that a request reaches the database without changing threads.
    public static func open(
        configuration: ServerConfiguration, logger: Logger = Logger(label: "latchkey"), now: @escaping @Sendable () -> Date = { Date() },
        eventLoopGroup: any EventLoopGroup
    ) async throws -> Latchkey {
        try configuration.validate()
        let providers = try PasskeyProviders.bundled()
        // The pool reports each failed connection attempt itself; requests that fail because of it are
        // logged by the error middleware, so the pool only speaks about critical trouble.
        var poolLogger = logger
        poolLogger.logLevel = .critical
        let connections = try await configuration.openMigratedDatabase(logger: poolLogger, eventLoopGroup: eventLoopGroup)
        // Logout tokens are queued only when something will deliver them (`OIDCLogoutDelivery`, with --oidc).
        let store = Store(
            connections: connections, webhookEndpoints: configuration.webhookEndpoints.map(\.id), queuesOIDCLogouts: configuration.oidc)
        do {
            let vault = ServerKeyVault(store: store, key: try configuration.keyEncryptionKey(), source: configuration.keyFileDescription)
            // One key for every instance on this database, made by whichever starts first.
            let sealer = try ChallengeSealer(
                key: try await vault.key(named: ChallengeSealer.keyName, byteCount: ChallengeSealer.keyByteCount), rpId: configuration.rpId)
            if let blob = configuration.mdsBlob {
                let loaded: MetadataLoader.Outcome
                do {
                    loaded = try await MetadataLoader.load(file: blob, rootFile: configuration.mdsRoot, store: store, now: now(), origin: .system)
                } catch let refused as MetadataLoader.Refused {
                    throw ServerConfiguration.Invalid(description: refused.description)
                }
                if case .older = loaded.result {
                    logger.warning("metadata BLOB not loaded", metadata: ["file": "\(blob)", "reason": "\(loaded.sentence)"])
                } else {
                    logger.info("metadata BLOB", metadata: ["file": "\(blob)", "result": "\(loaded.sentence)"])
                }
            }
            let sessions = SessionService(
                store: store, ttl: configuration.sessionTTL, now: now, endListener: ForwardAuthCache(lifetime: configuration.forwardAuthCacheTTL))
            let registry = PrometheusCollectorRegistry()
            let metricsFactory = PrometheusMetricsFactory(registry: registry)
            let ceremonies = CeremonyService(
                store: store, sealer: sealer, configuration: configuration, sessions: sessions,
                metrics: CeremonyMetrics(factory: metricsFactory), policy: try AuthenticatorPolicy(configuration: configuration, providers: providers),
                now: now)
            // The OpenID Connect provider signs with the access tokens' keys, so either turns them on; it
            // tells the issuer which of its tokens are still active and whether RSA keys are wanted.
            let clientFacts = OIDCClientFacts(store: store, now: now)
            let oidcIssuer = configuration.oidc ? configuration.effectiveOIDCIssuer : nil
            let issuer = configuration.accessTokens || configuration.oidc ? AccessTokenIssuer(
                store: store, vault: vault, settings: .init(
                    ttl: configuration.accessTokenTTL, keyLifetime: configuration.signingKeyLifetime,
                    issuer: configuration.effectiveTokenIssuer, audience: configuration.tokenAudience, oidcIssuer: oidcIssuer),
                now: now, clientTokens: OIDCTokenIntrospection(store: store, issuer: oidcIssuer),
                rsaWanted: { try await clientFacts.facts().anyRS256 }) : nil
            var mail: EmailService.Mail?
            if let server = configuration.smtpServer, let sender = configuration.mailSender {
                let client = try SMTPClient(server: server, heloName: configuration.rpId, eventLoopGroup: eventLoopGroup, trustRoots: configuration.smtpCAFile)
                mail = EmailService.Mail(
                    sender: MailSender(client: client, from: sender, logger: logger, metrics: metricsFactory),
                    outbox: MailOutbox(metrics: metricsFactory, logger: logger))
            }
            // The clients the configuration file declares, before any request can read them.
            try await OIDCClientReconciliation.apply(configuration, store: store, now: now(), logger: logger)
            var oidc: OIDCProvider?
            if configuration.oidc, let issuer {
                let stampKey = try await vault.key(named: OIDCInteractionStamp.keyName, byteCount: 32)
                oidc = OIDCProvider(
                    store: store, tokens: issuer, clientFacts: clientFacts, stamps: OIDCInteractionStamp(key: SymmetricKey(data: stampKey)),
                    settings: .init(
                        issuer: configuration.effectiveOIDCIssuer, accessTokenLifetime: configuration.accessTokenTTL,
                        refreshLifetime: configuration.oidcRefreshTTL),
                    now: now, keySets: OIDCClientKeySets(allowPrivate: configuration.webhookAllowPrivate))
            }
            return Latchkey(
                configuration: configuration, store: store, connections: connections, sessions: sessions,
                authenticationRules: RequestAuthentication(
                    sessions: sessions, origins: configuration.relyingParty.origins, secureCookies: configuration.secureCookies,
                    cookieDomain: configuration.cookieDomain),
                ceremonies: ceremonies, issuer: issuer, oidc: oidc, providers: providers,
                rateLimiter: RateLimiter(requestsPerMinute: max(configuration.rateLimit, 1)),
                sharedRateLimit: configuration.rateLimit > 0 && configuration.effectiveRateLimitScope == .database
                    ? SharedRateLimit(store: store, perMinute: configuration.rateLimit, logger: logger) : nil,
                mail: mail, registry: registry, metricsFactory: metricsFactory, logger: logger, now: now)
        } catch {
            try? await connections.shutdown()
            throw error
        }
    }

    /// What an operator can do (the admin API, `latchkey admin`).
    var admin: AdminService {
        AdminService(
            store: store, providers: providers, androidApps: configuration.androidApps, now: now, recovery: recovery,
            clientFacts: oidc?.clientFacts)
    }

    /// Recovery grants and their exchange.
    var recovery: RecoveryService {
        RecoveryService(store: store, configuration: configuration, now: now)
    }

    /// Invitations, and the accounts operators make with them.
    var invitations: InvitationService {
        InvitationService(store: store, configuration: configuration, mail: mail?.sender, outbox: mail?.outbox, now: now)
    }

    /// The shipped languages, with `--default-language` (checked: a code no catalogue has stops the server).
    var catalogues: Catalogues {
        get throws { try Catalogues.load(defaultLanguage: configuration.defaultLanguage) }
    }

    /// Email addresses and recovery links by mail.
    var email: EmailService {
        EmailService(store: store, configuration: configuration, recovery: recovery, sessions: sessions, mail: mail, logger: logger, now: now)
    }

    /// The admin API at `/api/admin/…` on `router` (`latchkey serve`'s, or the one of `--admin-listen`),
    /// rate-limited like the rest of the API.
    /// With `console`, the admin console too (`/admin`: its page and its session's routes, rate-limited), whose
    /// session the admin API admits beside keys.
    func mountAdmin<Context: LatchkeyRequestContext>(on router: Router<Context>, console: Bool = false) throws {
        let consoleService = console ? self.console : nil
        let group = router.group("api/admin")
        if let limit: RateLimitMiddleware<Context> = rateLimitMiddleware() { group.add(middleware: limit) }
        group.addRoutes(AdminController(admin: admin, trustForwardedFor: configuration.trustForwardedFor, console: consoleService).routes())
        group.addRoutes(InvitationAdminController(
            admin: admin, invitations: invitations, trustForwardedFor: configuration.trustForwardedFor, console: consoleService).routes())
        if let consoleService {
            let pages = router.group()
            if let limit: RateLimitMiddleware<Context> = rateLimitMiddleware() { pages.add(middleware: limit) }
            try ConsoleController.load(console: consoleService, trustForwardedFor: configuration.trustForwardedFor).register(on: pages)
            // The console's words and brand, beside its files (it may be served alone, on --admin-listen).
            let branding = try Branding.load(configuration)
            try LocaleController(catalogues: try catalogues, brand: configuration.brandName ?? configuration.rpName, branding: branding)
                .register(on: pages, path: "/admin/assets/locale.json")
            BrandController(branding: branding).register(on: pages, prefix: "/admin/assets")
        }
    }

    /// The admin console's sessions.
    var console: ConsoleService {
        ConsoleService(
            store: store, ceremonies: ceremonies, setup: setupLink, origins: configuration.relyingParty.origins,
            secureCookies: configuration.secureCookies, now: now)
    }

    /// The first administrator's setup link.
    var setupLink: AdminSetupLink {
        AdminSetupLink(store: store, now: now)
    }

    /// Adds Latchkey's routes to `router` under `prefix` ("" for the root): the ceremonies, the account
    /// and its passkeys, sessions and tokens under `<prefix>/api/…` (rate-limited, every error in the
    /// API's JSON shape), and with `page` the web page at `<prefix>/`. The documents other systems fetch
    /// from the domain's root — `/.well-known/apple-app-site-association`, `/.well-known/webauthn`,
    /// `/.well-known/jwks.json` — always go at the root, where they are looked for.
    public func mount<Context: LatchkeyRequestContext>(on router: Router<Context>, at prefix: String = "", page: Bool = false) throws {
        try mount(on: router, at: prefix, page: page, answeringErrors: true)
    }

    /// `answeringErrors`: whether Latchkey's routes get their own error-and-log middleware — not when the
    /// router already has one for every route (`latchkey serve`), which would log each request twice.
    func mount<Context: LatchkeyRequestContext>(on router: Router<Context>, at prefix: String, page: Bool, answeringErrors: Bool) throws {
        let trimmed = prefix.split(separator: "/").joined(separator: "/")
        let scope = router.group(RouterPath(stringLiteral: trimmed))
        let root = router.group()
        if answeringErrors {
            scope.add(middleware: ErrorAndLogMiddleware<Context>())
            root.add(middleware: ErrorAndLogMiddleware<Context>())
        }
        // A recovery session reaches only the add-passkey routes (`latchkey serve` also gates its whole router).
        scope.add(middleware: RecoveryGate<Context>(prefix: trimmed))
        root.add(middleware: RecoveryGate<Context>(prefix: trimmed))
        // The limiter is the API group's middleware, so it applies to every request the router resolves to
        // an API route, however its path is spelled (`//api/…` reaches the same routes).
        let api = scope.group("api")
        if let limit: RateLimitMiddleware<Context> = rateLimitMiddleware() { api.add(middleware: limit) }
        // Every route that acts for a signed-in caller sits behind the authentication middleware; no
        // handler checks a session itself.
        let signedIn: LatchkeyAuthenticationMiddleware<Context> = authentication(required: true)
        api.addRoutes(CeremonyController(ceremonies: ceremonies, configuration: configuration, providers: providers)
            .routes(session: LatchkeyAuthenticationMiddleware(authentication: authenticationRules, required: false, allowsRecovery: true)))
        api.addRoutes(RecoveryController(recovery: recovery, trustForwardedFor: configuration.trustForwardedFor).routes())
        api.addRoutes(InvitationController(invitations: invitations, trustForwardedFor: configuration.trustForwardedFor).routes())
        api.addRoutes(DeviceRequestController(
            approvals: DeviceApprovalService(store: store, ceremonies: ceremonies, now: now), trustForwardedFor: configuration.trustForwardedFor)
            .routes(signedIn: signedIn))
        api.addRoutes(EmailController(email: email, trustForwardedFor: configuration.trustForwardedFor).routes(signedIn: signedIn))
        api.addRoutes(AccountController(store: store, sessions: sessions, configuration: configuration, providers: providers, accounts: AccountService(store: store, now: now))
            .routes(signedIn: signedIn))
        api.addRoutes(AccountLanguageController(catalogues: try catalogues, accounts: AccountService(store: store, now: now)).routes(signedIn: signedIn))
        api.addRoutes(AccountAppsController(store: store, accounts: AccountService(store: store, now: now), trustForwardedFor: configuration.trustForwardedFor, now: now).routes(signedIn: signedIn))
        let tokens = TokenController(
            issuer: issuer, sessionTokens: configuration.accessTokens, sessions: sessions, introspectionSecret: configuration.introspectionSecret, trustForwardedFor: configuration.trustForwardedFor)
        api.addRoutes(tokens.routes(signedIn: signedIn))
        tokens.registerIntrospection(on: scope)
        if let cache = sessions.endListener as? ForwardAuthCache {
            ForwardAuthController(store: store, cache: cache, configuration: configuration, now: now).register(unlimited: scope, api: api)
        }
        tokens.registerKeySet(on: root)
        WellKnownController(configuration: configuration).register(on: root)
        if page {
            let pages = try PageController.load()
            pages.register(on: scope, prefix: trimmed)
            let branding = try Branding.load(configuration)
            try LocaleController(catalogues: try catalogues,
                                 brand: configuration.brandName ?? configuration.rpName, branding: branding).register(on: scope)
            BrandController(branding: branding).register(on: scope)
            ProviderIconController(providers: providers, store: store).register(on: scope)
            // OpenID Connect needs the page (its sign-in and consent views), at the domain's root.
            OIDCController(provider: oidc, sessions: sessions, configuration: configuration, page: pages.assets["/"])
                .register(root: root, api: api, session: authentication(required: false))
        }
    }

    /// The rate limit as configured (nil when it is off), over the one shared `rateLimiter`.
    func rateLimitMiddleware<Context: LatchkeyRequestContext>() -> RateLimitMiddleware<Context>? {
        guard configuration.rateLimit > 0 else { return nil }
        return RateLimitMiddleware<Context>(
            limiter: rateLimiter, shared: sharedRateLimit, trustForwardedFor: configuration.trustForwardedFor,
            refused: Counter(label: "latchkey_rate_limited_total", factory: metricsFactory))
    }

    /// The middleware that puts the signed-in account into `context.latchkeyAccount` for the handlers
    /// after it; `required: false` lets anonymous requests through with no account.
    public func authentication<Context: LatchkeyRequestContext>(required: Bool = true) -> LatchkeyAuthenticationMiddleware<Context> {
        LatchkeyAuthenticationMiddleware(authentication: authenticationRules, required: required)
    }

    /// Prometheus text of Latchkey's counters (ceremonies, refusals, housekeeping), for the
    /// application's own `/metrics`.
    public func metricsText() -> [UInt8] {
        registry.emitToBuffer()
    }

    /// What must run beside the application: the housekeeping (expired sessions and challenges), which
    /// also closes the database when the application stops, and on SQLite the admin search's indexing of
    /// new names (`SearchIndexing`). Pass them to `Application(services:)`.
    public var services: [any Service] {
        var services: [any Service] = []
        if !configuration.webhookEndpoints.isEmpty, let secret = configuration.webhookSecret {
            services.append(WebhookDelivery(
                store: store, settings: .init(
                    endpoints: configuration.webhookEndpoints, secret: Array(secret.utf8), allowPrivate: configuration.webhookAllowPrivate,
                    maxAttempts: configuration.webhookMaxAttempts, retryDelay: configuration.webhookRetryDelay),
                logger: logger, metrics: metricsFactory))
        }
        if let oidc {
            // Back-channel logout tokens go out as webhooks do: the same address rules, attempts and back-off.
            services.append(OIDCLogoutDelivery(
                store: store, tokens: oidc.tokens, settings: .init(
                    issuer: oidc.settings.issuer, allowPrivate: configuration.webhookAllowPrivate,
                    maxAttempts: configuration.webhookMaxAttempts, retryDelay: configuration.webhookRetryDelay),
                logger: logger, metrics: metricsFactory))
        }
        if let mail { services.append(mail.outbox) }
        services.append(Housekeeping(
            store: store, connections: connections, logger: logger, interval: configuration.housekeepingInterval,
            auditRetention: TimeInterval(configuration.auditRetentionDays) * 86400,
            runs: Counter(label: "latchkey_housekeeping_runs_total", factory: metricsFactory)))
        if connections.flavor == .sqlite {
            services.append(SearchIndexing(store: store, logger: logger, interval: configuration.searchIndexingInterval))
        }
        return services
    }
}
