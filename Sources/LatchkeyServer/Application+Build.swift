import Foundation
import Hummingbird
import Logging

/// A running Latchkey: the database (migrated), the services, and the Hummingbird application that
/// serves the API. Tests build the same thing and drive it in-process.
public struct LatchkeyApplication: Sendable {
    public let application: Application<RouterResponder<BasicRequestContext>>
    let store: Store
}

/// Opens the database, applies migrations, and wires routes to controllers. Dependencies are passed in;
/// nothing is global.
public func buildApplication(
    configuration: ServerConfiguration, logger: Logger = Logger(label: "latchkey"),
    now: @escaping @Sendable () -> Date = { Date() }
) async throws -> LatchkeyApplication {
    try configuration.validate()
    let connections = try DatabaseConnections.open(configuration.database, logger: logger)
    do {
        try await Migrations.run(on: connections)
    } catch {
        try? await connections.shutdown()
        throw ServerConfiguration.Invalid(description: "the database \(configuration.database) cannot be opened or migrated: \(error)")
    }
    let store = Store(connections: connections)
    let sessions = SessionService(store: store, ttl: configuration.sessionTTL, now: now)
    let authentication = RequestAuthentication(sessions: sessions, origins: configuration.relyingParty.origins)
    let ceremonies = CeremonyService(store: store, configuration: configuration, sessions: sessions, now: now)

    let router = Router(context: BasicRequestContext.self)
    router.add(middleware: ErrorAndLogMiddleware())
    CeremonyController(ceremonies: ceremonies, authentication: authentication, configuration: configuration).register(on: router)
    AccountController(store: store, sessions: sessions, authentication: authentication, configuration: configuration, now: now)
        .register(on: router)
    WellKnownController(configuration: configuration).register(on: router)

    let application = Application(
        router: router,
        configuration: ApplicationConfiguration(address: .hostname(configuration.host, port: configuration.port), serverName: "Latchkey"),
        services: [Housekeeping(store: store, connections: connections, logger: logger)],
        logger: logger)
    return LatchkeyApplication(application: application, store: store)
}
