import ArgumentParser
import Foundation
import LatchkeyServer
import Logging
import WebAuthn

/// `latchkey serve`: the passkey server. Its settings are `ServeSettings.all`: each is a flag, an
/// environment variable and a key of the `--config` file (`ConfigurationFile`); a flag wins over the
/// variable, the variable over the file, the file over the default.
///
/// ArgumentParser cannot declare options from a table, so it hands `serve` its arguments as they are
/// and `ServeArguments` reads them; the help it prints for `serve` is written from the table too.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the passkey API (and, with no flags, use ./latchkey.sqlite on http://localhost:8080).",
        usage: "latchkey serve [--config <path>] [--<setting> <value> ...]",
        discussion: ServeArguments.discussion
    )

    /// Everything after `serve`, for `ServeArguments`.
    @Argument(parsing: .captureForPassthrough, help: .private)
    var arguments: [String] = []

    func run() async throws {
        if ServeArguments.asksForHelp(arguments) {
            print(Self.helpMessage())
            return
        }
        let environment = ProcessInfo.processInfo.environment
        let configuration: ServerConfiguration
        let file: String?
        do throws(ServerConfiguration.Invalid) {
            (configuration, file) = try load(environment: environment)
        } catch {
            Output.printError("latchkey serve: \(Self.sentence(error.description))")
            throw ExitCode(2)
        }
        var logger = Logger(label: "latchkey") { LineLogHandler(label: $0, format: configuration.logFormat) }
        // LOG_LEVEL (trace … critical) as in Hummingbird; default info, which logs every request.
        logger.logLevel = environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        let latchkey: LatchkeyApplication
        do {
            // Before anything makes a span: the tracer is the process's, bootstrapped once (off without OTEL_*).
            let exporter = try TracingBootstrap.bootstrap(environment: environment, logger: logger)
            latchkey = try await buildApplication(
                configuration: configuration, logger: logger, telemetry: exporter.map { [$0] } ?? [], onListening: { address in
                // On standard output, whatever the log level: with --port 0 this is how a caller (latchkey
                // bench, a test, a script) learns the port the kernel chose. Logs go to standard error.
                let port = address?.port ?? configuration.port
                Output.printLine("latchkey serve: listening on \(configuration.listeningScheme)://\(configuration.host):\(port)")
            }, onAdminListening: { address in
                let (host, port) = configuration.adminAddress ?? (configuration.host, 0)
                Output.printLine("latchkey serve: admin API on \(configuration.listeningScheme)://\(host):\(address?.port ?? port)")
            })
        } catch let invalid as ServerConfiguration.Invalid {
            Output.printError("latchkey serve: \(Self.sentence(invalid.description))")
            throw ExitCode(2)
        }
        // The one line an operator reads at start: what this is, for whom, on what, and what is on.
        logger.info("serving", metadata: [
            "address": "\(configuration.listeningScheme)://\(configuration.host):\(configuration.port)", "rp_id": "\(configuration.rpId)",
            "origins": "\(configuration.origins.joined(separator: ","))", "database": "\(configuration.database)",
            "config": "\(file ?? "none")", "on": "\(Self.switchedOn(configuration).joined(separator: ","))",
            "version": "\(BuildInfo.version)", "commit": "\(BuildInfo.commit ?? "development")",
        ])
        do {
            try await latchkey.application.runService()
        } catch {
            let text = "\(error)"
            if text.contains("Address already in use") || text.contains("EADDRINUSE") || text.contains("errno: 98") {
                Output.printError("latchkey serve: \(configuration.host):\(configuration.port) is already in use; choose another --port.")
            } else {
                Output.printError("latchkey serve: the server stopped: \(text).")
            }
            throw ExitCode(2)
        }
    }

    /// The configuration to serve, checked, and the configuration file it read, if any.
    private func load(environment: [String: String]) throws(ServerConfiguration.Invalid) -> (ServerConfiguration, file: String?) {
        let given = try ServeArguments(arguments)
        let path = given.configurationFilePath(environment: environment)
        let configuration = try given.resolve(environment: environment, file: path.map(ConfigurationFile.init(path:)))
        try configuration.validate()
        return (configuration, path)
    }

    /// The configuration from the flags, then `environment`, then the defaults (no configuration file).
    func resolve(environment: [String: String]) throws(ServerConfiguration.Invalid) -> ServerConfiguration {
        try ServeArguments(arguments).resolve(environment: environment, file: nil)
    }

    /// The configuration from the flags, then `environment`, then `file`, then the defaults.
    func resolve(environment: [String: String], file: ConfigurationFile?) throws(ServerConfiguration.Invalid) -> ServerConfiguration {
        try ServeArguments(arguments).resolve(environment: environment, file: file)
    }

    /// The configuration file to read: `--config`, else `LATCHKEY_CONFIG`, else none.
    func configurationFilePath(environment: [String: String]) throws(ServerConfiguration.Invalid) -> String? {
        try ServeArguments(arguments).configurationFilePath(environment: environment)
    }

    /// Flags, then `environment`, then the configuration file (`--config` or `LATCHKEY_CONFIG`), then the defaults.
    func resolveWithConfigurationFile(environment: [String: String]) throws(ServerConfiguration.Invalid) -> ServerConfiguration {
        let given = try ServeArguments(arguments)
        let file = try given.configurationFilePath(environment: environment).map(ConfigurationFile.init(path:))
        return try given.resolve(environment: environment, file: file)
    }

    /// The features this configuration turns on, by their setting's name ("none" when only the passkey API
    /// and the page are served): the start-up line's `on`.
    static func switchedOn(_ c: ServerConfiguration) -> [String] {
        var on: [String] = []
        if c.servesTLS { on.append("tls") }
        if c.oidc { on.append("oidc") }
        if c.accessTokens { on.append("access-tokens") }
        if c.introspectionSecret != nil { on.append("introspection") }
        if c.smtpURL != nil { on.append("email") }
        if c.recoveryEmail { on.append("recovery-email") }
        if !c.webhookEndpoints.isEmpty { on.append("webhooks") }
        if c.adminListen != nil { on.append("admin-listen") }
        if c.mdsBlob != nil { on.append("mds-blob") }
        if c.requireAttestation { on.append("require-attestation") }
        if c.trustForwardedFor { on.append("trust-forwarded-for") }
        on += c.compatibility.map { "compat-\($0.rawValue)" }.sorted()
        return on.isEmpty ? ["none"] : on
    }

    static func sentence(_ text: String) -> String {
        let capitalized = text.prefix(1).uppercased() + text.dropFirst()
        return capitalized.hasSuffix(".") ? capitalized : capitalized + "."
    }
}
