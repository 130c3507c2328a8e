import Foundation
import Hummingbird
import LatchkeyAPI
import LatchkeyRuntime
import LatchkeyTransport
import Logging
import Metrics
import NIOCore
import Prometheus
import ServiceLifecycle
import UnixSignals

/// A running Latchkey: the database (migrated), the services, and the Hummingbird application that
/// serves the API. Tests build the same thing and drive it in-process.
public struct LatchkeyApplication: Sendable {
    public let application: Application<RouterResponder<APIRequestContext>>
    let store: Store
}

/// `latchkey serve`'s application: Latchkey mounted at the root with the page, plus liveness, metrics and
/// the API document. Dependencies are passed in; nothing is global. `onListening` is called with the
/// address the server listens on once it does (with port 0, the port the kernel chose); `onAdminListening`
/// the same for the admin API's own address (`--admin-listen`). `telemetry`: services started before every
/// other and stopped after them (`latchkey serve`'s span exporter, so that the last requests' spans are
/// sent before the process ends).
///
/// With a tracer bootstrapped (`InstrumentationSystem`) before the call, every request has a span
/// (`RequestSpanMiddleware`), and so do its ceremony, verification and units of work (`Spans`).
public func buildApplication(
    configuration: ServerConfiguration, logger: Logger = Logger(label: "latchkey"),
    now: @escaping @Sendable () -> Date = { Date() },
    telemetry: [any Service] = [],
    onListening: @escaping @Sendable (SocketAddress?) async -> Void = { _ in },
    onAdminListening: @escaping @Sendable (SocketAddress?) async -> Void = { _ in }
) async throws -> LatchkeyApplication {
    let tracing = Spans().isOn
    let loops = ServerEventLoops.group(threads: configuration.eventLoopThreads)
    // HTTPS (--tls-cert): the files are read before anything else opens, so a mistake in them is one
    // sentence at start-up; SIGHUP reads them again (the handler is installed here, before the server
    // listens).
    let certificate = try ServerCertificate(configuration)
    let latchkey = try await Latchkey.open(configuration: configuration, logger: logger, now: now, eventLoopGroup: loops)
    let router = Router(context: APIRequestContext.self)
    // The request's span encloses everything else, the error answers and the log line included.
    if tracing { router.add(middleware: RequestSpanMiddleware()) }
    // Over TLS every response carries HSTS, the error middleware's answers included.
    if certificate != nil { router.add(middleware: StrictTransportSecurityMiddleware()) }
    // Unknown paths and methods get the API's JSON errors too.
    router.add(middleware: ErrorAndLogMiddleware())
    // Every route, the page and the documents included: a recovery session may only add a passkey.
    router.add(middleware: RecoveryGate())
    try latchkey.mount(on: router, at: "", page: true, answeringErrors: false)
    // The admin API: beside the rest, or with --admin-listen on its own address only (an interface the
    // public cannot reach), as an application of its own that runs beside the main one.
    // Stopped in reverse order: the exporter last, after the server and the services that use the database.
    var services = telemetry + latchkey.services
    if let certificate {
        let loaded = certificate.loaded
        logger.info("TLS certificate loaded", metadata: [
            "serial": "\(loaded.serial)", "not_after": "\(CertificateReloadService.timestamp(loaded.notAfter))",
            "file": "\(certificate.certificatePath)",
        ])
        services.append(CertificateReloadService(
            certificate: certificate, signals: await UnixSignalsSequence(trapping: .sighup), logger: logger))
    }
    var adminRoutes: [String] = []
    if let (host, port) = configuration.adminAddress {
        let adminRouter = Router(context: APIRequestContext.self)
        if tracing { adminRouter.add(middleware: RequestSpanMiddleware()) }
        if certificate != nil { adminRouter.add(middleware: StrictTransportSecurityMiddleware()) }
        adminRouter.add(middleware: ErrorAndLogMiddleware())
        try latchkey.mountAdmin(on: adminRouter, console: true)
        adminRoutes = adminRouter.routes.map { "\($0.method.rawValue) \($0.path)" }
        // The admin address speaks what the main one does: its keys never cross a network in the clear.
        services.append(Application(
            router: adminRouter, server: .latchkey(configuration, certificate: certificate),
            configuration: ApplicationConfiguration(address: .hostname(host, port: port), serverName: "Latchkey admin"),
            onServerRunning: { channel in await onAdminListening(channel.localAddress) },
            eventLoopGroupProvider: .shared(loops), logger: logger))
    } else {
        try latchkey.mountAdmin(on: router, console: true)
    }
    // No administrator yet: the first one's setup link, once, in the log (where the console is served).
    try await latchkey.setupLink.announce(origin: configuration.consoleOrigin, logger: logger)
    router.get("/healthz") { _, _ in Health(status: "ok") }
    // Readiness: the database answers, and its schema is the one this binary runs on (the server key
    // and the migrations were loaded and run at start-up, or it would not be serving).
    router.get("/readyz") { _, _ in
        let version = try await latchkey.store.schemaVersion()
        guard version == Migrations.latestVersion else {
            throw APIError(.notReady, "The database's schema is version \(version); this server runs on version \(Migrations.latestVersion).")
        }
        return Readiness(status: "ready", schemaVersion: version)
    }
    router.get("/metrics") { _, _ in
        Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: latchkey.metricsText())))
    }
    try OpenAPIController.load().register(on: router, alsoServed: adminRoutes) // it checks every route above against openapi.yaml
    // After the check: other projects' APIs, on only when asked for, are not Latchkey's documented API
    // (see `CompatibilityAPI`).
    latchkey.mountCompatibility(on: router, answeringErrors: false)

    let application = Application(
        router: router,
        server: .latchkey(configuration, certificate: certificate),
        configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: "Latchkey"),
        services: services,
        onServerRunning: { channel in
            // Start-up's short-lived trees are freed by now: their pages go back to the system.
            HeapTrim.now()
            await onListening(channel.localAddress)
        },
        eventLoopGroupProvider: .shared(loops),
        logger: logger)
    return LatchkeyApplication(application: application, store: latchkey.store)
}

/// `GET /healthz`: liveness for load balancers.
struct Health: APIResponseBody { let status: String }

/// `GET /readyz`: readiness, with the schema version the database is at.
struct Readiness: APIResponseBody {
    let status: String
    let schemaVersion: Int
}
