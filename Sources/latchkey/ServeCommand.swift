import ArgumentParser
import Foundation
import LatchkeyServer
import Logging
import WebAuthn

/// `latchkey serve`: the passkey server. Every flag can also come from an environment variable and from
/// the `--config` file (`ConfigurationFile`): a flag wins over the variable, the variable over the file,
/// the file over the default.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the passkey API (and, with no flags, use ./latchkey.sqlite on http://localhost:8080).",
        discussion: """
            Environment: LATCHKEY_CONFIG (as --config), LATCHKEY_HOST, LATCHKEY_PORT, LATCHKEY_RP_ID, LATCHKEY_RP_NAME, LATCHKEY_ORIGIN (comma-separated), \
            LATCHKEY_DATABASE, LATCHKEY_KEY_FILE, LATCHKEY_MAX_PASSKEYS_PER_ACCOUNT, LATCHKEY_ADD_PASSKEY_WINDOW (seconds), LATCHKEY_HEAD_TIMEOUT (seconds), LATCHKEY_SESSION_TTL (seconds), LATCHKEY_CHALLENGE_TTL (seconds), \
            LATCHKEY_USER_VERIFICATION, LATCHKEY_ATTESTATION, LATCHKEY_APPLE_APP_ID (comma-separated), LATCHKEY_ANDROID_APP (comma-separated), LATCHKEY_THREADS, LATCHKEY_RATE_LIMIT, \
            LATCHKEY_TRUST_FORWARDED_FOR (true or false), LATCHKEY_IDLE_TIMEOUT (seconds), LATCHKEY_MAX_CONNECTIONS, \
            LATCHKEY_MAX_CONNECTIONS_PER_CLIENT, LATCHKEY_DATABASE_POOL, LATCHKEY_DATABASE_TIMEOUT (seconds), \
            LATCHKEY_RATE_LIMIT_SCOPE, LATCHKEY_HOUSEKEEPING_INTERVAL (seconds), LATCHKEY_ACCESS_TOKENS (true or false), \
            LATCHKEY_ACCESS_TOKEN_TTL, LATCHKEY_SIGNING_KEY_LIFETIME (seconds), LATCHKEY_TOKEN_ISSUER, LATCHKEY_TOKEN_AUDIENCE, \
            LATCHKEY_INTROSPECTION_SECRET, \
            LATCHKEY_SIGN_COUNT, LATCHKEY_COMPAT (comma-separated), LATCHKEY_COMPAT_PASSKEYSDEMO_PATH, LOG_LEVEL (default info).
            """
    )

    @Option(help: "A TOML file of settings named as these flags (port = 8080); a flag or variable wins over it. Or LATCHKEY_CONFIG.")
    var config: String?
    @Option(help: "Address to listen on (default 127.0.0.1).") var host: String?
    @Option(help: "Port to listen on (default 8080; 0: one the kernel chooses, printed as \"latchkey serve: listening on http://HOST:PORT\" on standard output, with --origin).") var port: Int?
    @Option(name: .customLong("rp-id"), help: "The relying party ID, a domain (default localhost).") var rpId: String?
    @Option(name: .customLong("rp-name"), help: "The name shown by authenticators (default Latchkey).") var rpName: String?
    @Option(help: "An origin allowed to use the passkeys; repeat for several (default http://localhost:PORT).") var origin: [String] = []
    @Option(help: "sqlite:PATH (default sqlite:latchkey.sqlite) or postgres://user@host:port/database.") var database: String?
    @Option(name: .customLong("key-file"), help: "The file whose key wraps the secret keys kept in the database, made (chmod 600) when absent; every instance on one database needs the same (default: latchkey.key beside the SQLite file, ./latchkey.key for PostgreSQL).")
    var keyFile: String?
    @Option(name: .customLong("max-passkeys-per-account"), help: "Passkeys one account may hold (default 100).")
    var maxPasskeysPerAccount: Int?
    @Option(name: .customLong("add-passkey-window"), help: "Seconds after a passkey sign-in in which that session may add a passkey (default 600).")
    var addPasskeyWindow: Int?
    @Option(name: .customLong("head-timeout"), help: "Seconds a request head may take from its first byte to its end (default 10; 0: none; never more than the idle time-out).")
    var headTimeout: Int?
    @Option(name: .customLong("session-ttl"), help: "Session lifetime in seconds (default 86400).") var sessionTTL: Int?
    @Option(name: .customLong("challenge-ttl"), help: "Challenge lifetime in seconds (default 300).") var challengeTTL: Int?
    @Option(name: .customLong("user-verification"), help: "required (default) or preferred.") var userVerification: String?
    @Option(help: "none (default) or direct.") var attestation: String?
    @Option(name: .customLong("sign-count"), help: "A login whose signature counter did not grow: reject (default) or warn (let it through, count it).")
    var signCount: String?
    @Option(name: .customLong("apple-app-id"), help: "TEAMID.bundle.id allowed to use these passkeys; repeatable.") var appleAppId: [String] = []
    @Option(name: .customLong("android-app"), help: "PACKAGE:SHA256_FINGERPRINT (AA:BB:…, as keytool prints it) of an Android app allowed to use these passkeys; repeatable.")
    var androidApp: [String] = []
    @Option(help: "Event-loop threads serving connections (default 1; 0: one per core).") var threads: Int?
    @Option(name: .customLong("rate-limit"), help: "API requests per minute per client address, in bursts of as many (default 600; 0: no limit).")
    var rateLimit: Int?
    @Option(name: .customLong("rate-limit-scope"), help: "instance (count per process) or database (one count shared by the instances on a PostgreSQL database; the default there).")
    var rateLimitScope: String?
    @Option(name: .customLong("housekeeping-interval"), help: "Seconds between purges of expired sessions and challenges; one instance per database does each (default 60).")
    var housekeepingInterval: Double?
    @Flag(name: .customLong("access-tokens"), help: "Issue signed access tokens (JWT, ES256) from sessions at POST /api/token, keys at /.well-known/jwks.json.")
    var accessTokens = false
    @Option(name: .customLong("access-token-ttl"), help: "Seconds an access token is valid (default 900).")
    var accessTokenTTL: Int?
    @Option(name: .customLong("signing-key-lifetime"), help: "Seconds each access-token signing key signs before the next one takes over (default 604800, a week).")
    var signingKeyLifetime: Int?
    @Option(name: .customLong("token-issuer"), help: "The access tokens' iss claim (default: the first origin).")
    var tokenIssuer: String?
    @Option(name: .customLong("token-audience"), help: "The access tokens' aud claim (default: none).")
    var tokenAudience: String?
    @Option(name: .customLong("introspection-secret-file"), help: "A file holding the secret (32+ characters) backends present to POST /api/introspect; introspection is off without one. Or LATCHKEY_INTROSPECTION_SECRET.")
    var introspectionSecretFile: String?
    @Flag(name: .customLong("trust-forwarded-for"), help: "Behind a reverse proxy: count requests against the last X-Forwarded-For address.")
    var trustForwardedFor = false
    @Option(name: .customLong("database-pool"), help: "PostgreSQL connections per instance (default 8).")
    var databasePool: Int?
    @Option(name: .customLong("database-timeout"), help: "Seconds a database operation may take before the request is a 503 (default 5).")
    var databaseTimeout: Double?
    @Option(name: .customLong("idle-timeout"), help: "Seconds a connection may stay open without a complete request part (default 30; 0: none).")
    var idleTimeout: Int?
    @Option(name: .customLong("max-connections"), help: "Open connections in all (default 4096; 0: no limit).")
    var maxConnections: Int?
    @Option(name: .customLong("max-connections-per-client"), help: "Open connections per client address (default 256; 0: no limit; not applied with --trust-forwarded-for).")
    var maxConnectionsPerClient: Int?
    @Option(name: .customLong("compat"), help: "Also serve another project's API for its existing clients: passkeysdemo, hanko; repeatable or comma-separated (default: none).")
    var compat: [String] = []
    @Option(name: .customLong("compat-passkeysdemo-path"), help: "Where the PassKeysDemo-compatible API answers (default /pkd/index.php).")
    var compatPassKeysDemoPath: String?

    func run() async throws {
        let configuration: ServerConfiguration
        switch loadConfiguration() {
        case .success(let loaded):
            configuration = loaded
        case .failure(let invalid):
            Output.printError("latchkey serve: \(Self.sentence(invalid.description))")
            throw ExitCode(2)
        }
        var logger = Logger(label: "latchkey") { LineLogHandler(label: $0) }
        // LOG_LEVEL (trace … critical) as in Hummingbird; default info, which logs every request.
        logger.logLevel = ProcessInfo.processInfo.environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        let latchkey: LatchkeyApplication
        do {
            latchkey = try await buildApplication(configuration: configuration, logger: logger, onListening: { address in
                // On standard output, whatever the log level: with --port 0 this is how a caller (latchkey
                // bench, a test, a script) learns the port the kernel chose. Logs go to standard error.
                let port = address?.port ?? configuration.port
                Output.printLine("latchkey serve: listening on http://\(configuration.host):\(port)")
            })
        } catch let invalid as ServerConfiguration.Invalid {
            Output.printError("latchkey serve: \(Self.sentence(invalid.description))")
            throw ExitCode(2)
        }
        logger.info("serving", metadata: [
            "address": "http://\(configuration.host):\(configuration.port)", "rp_id": "\(configuration.rpId)",
            "origins": "\(configuration.origins.joined(separator: ","))", "database": "\(configuration.database)",
            "config": "\(configurationFilePath(environment: ProcessInfo.processInfo.environment) ?? "none")",
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

    private func loadConfiguration() -> Result<ServerConfiguration, ServerConfiguration.Invalid> {
        Result { () throws(ServerConfiguration.Invalid) -> ServerConfiguration in
            let configuration = try resolveWithConfigurationFile(environment: ProcessInfo.processInfo.environment)
            try configuration.validate()
            return configuration
        }
    }

    func resolve(environment env: [String: String]) throws(ServerConfiguration.Invalid) -> ServerConfiguration {
        func list(_ name: String) -> [String] {
            (env[name] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        func integer(_ flag: Int?, _ name: String) throws(ServerConfiguration.Invalid) -> Int? {
            if let flag { return flag }
            guard let text = env[name], !text.isEmpty else { return nil }
            guard let value = Int(text) else { throw .init(description: "\(name) must be a whole number, not \"\(text)\"") }
            return value
        }
        func seconds(_ flag: Double?, _ name: String) throws(ServerConfiguration.Invalid) -> Double? {
            if let flag { return flag }
            guard let text = env[name], !text.isEmpty else { return nil }
            guard let value = Double(text) else { throw .init(description: "\(name) must be a number of seconds, not \"\(text)\"") }
            return value
        }
        var c = ServerConfiguration()
        c.host = host ?? env["LATCHKEY_HOST"] ?? c.host
        c.port = try integer(port, "LATCHKEY_PORT") ?? c.port
        c.rpId = rpId ?? env["LATCHKEY_RP_ID"] ?? c.rpId
        c.rpName = rpName ?? env["LATCHKEY_RP_NAME"] ?? c.rpName
        let origins = origin.isEmpty ? list("LATCHKEY_ORIGIN") : origin
        if origins.isEmpty, c.port == 0 {
            throw .init(description: "with --port 0 give the passkeys' --origin too: its default, http://localhost:PORT, needs the port before the server has it")
        }
        c.origins = origins.isEmpty ? ["http://localhost:\(c.port)"] : origins
        if let text = database ?? env["LATCHKEY_DATABASE"] { c.database = try DatabaseLocation(parsing: text) }
        c.keyFile = keyFile ?? env["LATCHKEY_KEY_FILE"].flatMap { $0.isEmpty ? nil : $0 }
        c.maxPasskeysPerAccount = try integer(maxPasskeysPerAccount, "LATCHKEY_MAX_PASSKEYS_PER_ACCOUNT") ?? c.maxPasskeysPerAccount
        if let seconds = try integer(addPasskeyWindow, "LATCHKEY_ADD_PASSKEY_WINDOW") { c.addPasskeyWindow = TimeInterval(seconds) }
        if let seconds = try integer(headTimeout, "LATCHKEY_HEAD_TIMEOUT") { c.headTimeout = TimeInterval(seconds) }
        if let seconds = try integer(sessionTTL, "LATCHKEY_SESSION_TTL") { c.sessionTTL = TimeInterval(seconds) }
        if let seconds = try integer(challengeTTL, "LATCHKEY_CHALLENGE_TTL") { c.ceremonyTTL = TimeInterval(seconds) }
        if let text = userVerification ?? env["LATCHKEY_USER_VERIFICATION"] {
            guard text == "required" || text == "preferred", let policy = RelyingParty.UserVerificationPolicy(rawValue: text) else {
                throw .init(description: "--user-verification must be required or preferred, not \"\(text)\"")
            }
            c.userVerification = policy
        }
        if let text = attestation ?? env["LATCHKEY_ATTESTATION"] {
            guard let preference = ServerConfiguration.AttestationPreference(rawValue: text) else {
                throw .init(description: "--attestation must be none or direct, not \"\(text)\"")
            }
            c.attestation = preference
        }
        if let text = signCount ?? env["LATCHKEY_SIGN_COUNT"] {
            switch text {
            case "reject": c.signCountPolicy = .reject
            case "warn": c.signCountPolicy = .report
            default: throw .init(description: "--sign-count must be reject or warn, not \"\(text)\"")
            }
        }
        c.appleAppIds = appleAppId.isEmpty ? list("LATCHKEY_APPLE_APP_ID") : appleAppId
        for text in androidApp.isEmpty ? list("LATCHKEY_ANDROID_APP") : androidApp { c.androidApps.append(try AndroidApp(parsing: text)) }
        c.threads = try integer(threads, "LATCHKEY_THREADS") ?? c.threads
        c.rateLimit = try integer(rateLimit, "LATCHKEY_RATE_LIMIT") ?? c.rateLimit
        if let text = rateLimitScope ?? env["LATCHKEY_RATE_LIMIT_SCOPE"].flatMap({ $0.isEmpty ? nil : $0 }) {
            guard let scope = ServerConfiguration.RateLimitScope(rawValue: text) else {
                throw .init(description: "--rate-limit-scope must be instance or database, not \"\(text)\"")
            }
            c.rateLimitScope = scope
        }
        if let seconds = try seconds(housekeepingInterval, "LATCHKEY_HOUSEKEEPING_INTERVAL") { c.housekeepingInterval = seconds }
        if let seconds = try integer(idleTimeout, "LATCHKEY_IDLE_TIMEOUT") { c.idleTimeout = TimeInterval(seconds) }
        c.databasePoolSize = try integer(databasePool, "LATCHKEY_DATABASE_POOL") ?? c.databasePoolSize
        if let seconds = try seconds(databaseTimeout, "LATCHKEY_DATABASE_TIMEOUT") { c.databaseTimeout = seconds }
        c.maxConnections = try integer(maxConnections, "LATCHKEY_MAX_CONNECTIONS") ?? c.maxConnections
        c.maxConnectionsPerClient = try integer(maxConnectionsPerClient, "LATCHKEY_MAX_CONNECTIONS_PER_CLIENT") ?? c.maxConnectionsPerClient
        if accessTokens {
            c.accessTokens = true
        } else if let text = env["LATCHKEY_ACCESS_TOKENS"], !text.isEmpty {
            guard let value = ["true": true, "1": true, "false": false, "0": false][text.lowercased()] else {
                throw .init(description: "LATCHKEY_ACCESS_TOKENS must be true or false, not \"\(text)\"")
            }
            c.accessTokens = value
        }
        if let seconds = try integer(accessTokenTTL, "LATCHKEY_ACCESS_TOKEN_TTL") { c.accessTokenTTL = TimeInterval(seconds) }
        if let seconds = try integer(signingKeyLifetime, "LATCHKEY_SIGNING_KEY_LIFETIME") { c.signingKeyLifetime = TimeInterval(seconds) }
        c.tokenIssuer = tokenIssuer ?? env["LATCHKEY_TOKEN_ISSUER"].flatMap { $0.isEmpty ? nil : $0 }
        c.tokenAudience = tokenAudience ?? env["LATCHKEY_TOKEN_AUDIENCE"].flatMap { $0.isEmpty ? nil : $0 }
        if let path = introspectionSecretFile {
            // The secret is read, never logged; a trailing line break (echo > file) is not part of it.
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw .init(description: "the introspection secret file \(path) cannot be read")
            }
            c.introspectionSecret = text.trimmingCharacters(in: .newlines)
        } else if let secret = env["LATCHKEY_INTROSPECTION_SECRET"], !secret.isEmpty {
            c.introspectionSecret = secret
        }
        if trustForwardedFor {
            c.trustForwardedFor = true
        } else if let text = env["LATCHKEY_TRUST_FORWARDED_FOR"], !text.isEmpty {
            guard let value = ["true": true, "1": true, "false": false, "0": false][text.lowercased()] else {
                throw .init(description: "LATCHKEY_TRUST_FORWARDED_FOR must be true or false, not \"\(text)\"")
            }
            c.trustForwardedFor = value
        }
        let compatibility = (compat.isEmpty ? list("LATCHKEY_COMPAT") : compat)
            .flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
        for name in compatibility {
            guard let api = CompatibilityAPI(rawValue: name) else {
                throw .init(description: "--compat must be \(CompatibilityAPI.allCases.map(\.rawValue).joined(separator: " or ")), not \"\(name)\"")
            }
            c.compatibility.insert(api)
        }
        if let path = compatPassKeysDemoPath ?? env["LATCHKEY_COMPAT_PASSKEYSDEMO_PATH"].flatMap({ $0.isEmpty ? nil : $0 }) {
            c.passKeysDemoPath = path
        }
        return c
    }

    static func sentence(_ text: String) -> String {
        let capitalized = text.prefix(1).uppercased() + text.dropFirst()
        return capitalized.hasSuffix(".") ? capitalized : capitalized + "."
    }
}
