import Crypto
import Foundation
import LatchkeyAPI
import LatchkeyDatabase
import LatchkeyRuntime
import LatchkeyTransport
import NIOCore
import WebAuthn

/// Everything `latchkey serve` is told at start-up (DESIGN §6). `validate()` turns a bad value into one
/// clear sentence before anything listens or opens a database.
public struct ServerConfiguration: Sendable {
    /// Where the rate limit's counts live.
    public enum RateLimitScope: String, Sendable, CaseIterable {
        /// In this process only: the single-machine default, and all SQLite can do.
        case instance
        /// Also in a bucket in the database that every instance on it shares (PostgreSQL).
        case database
    }

    /// How `latchkey serve` writes its log lines (`LineLogHandler`).
    public enum LogFormat: String, Sendable, CaseIterable {
        /// `time level label: key=value … [source] message`, as swift-log's `StreamLogHandler` writes.
        case logfmt
        /// One JSON object per line, for log stacks (Loki, Elasticsearch, CloudWatch …).
        case json
    }

    public enum AttestationPreference: String, Sendable, CaseIterable {
        /// Ask for no attestation (passkeys mostly have none to give).
        case none
        /// Ask for `direct` attestation and record the verified format and AAGUID.
        case direct
    }

    public var host = "127.0.0.1"
    public var port = 8080
    public var rpId = "localhost"
    public var rpName = "Latchkey"
    /// The language of a page or mail when neither the person's choice nor Accept-Language names a
    /// shipped one (a code of `Public/locales`, checked at start by `Catalogues`).
    public var defaultLanguage = "en"
    /// The service's name on the page, the console and the mails; nil: `rpName`.
    public var brandName: String?
    /// The accent colour (`#rrggbb`) of the light and the dark scheme; nil: Latchkey's. `Branding` refuses
    /// one below WCAG AA's 4.5:1 against the backgrounds it is used on, at start.
    public var accentColor: String?
    public var accentColorDark: String?
    /// Files the page and the console show: a logo (SVG or PNG) in place of Latchkey's mark, a favicon
    /// (SVG, PNG or ICO), and a stylesheet served after Latchkey's (unsupported across versions).
    public var brandLogo: String?
    public var brandFavicon: String?
    public var brandCSS: String?
    public var origins = ["http://localhost:8080"]
    public var database = DatabaseLocation.sqlite(path: "latchkey.sqlite")
    /// The file holding the key that wraps the server's secret keys in the database (`KeyFile`), created
    /// with mode 600 on first start when absent. Nil: `latchkey.key` beside a SQLite database file,
    /// `./latchkey.key` for PostgreSQL (every instance must then be given the same file), and a key in
    /// memory only for an in-memory database.
    public var keyFile: String?
    /// PostgreSQL connections in all (per instance).
    public var databasePoolSize = 8
    /// Seconds a unit of database work may take, waiting for a connection included; past it the request
    /// is a 503 `database_unavailable` and the connection is closed (PostgreSQL).
    public var databaseTimeout: TimeInterval = 5
    public var sessionTTL: TimeInterval = 24 * 3600
    public var ceremonyTTL: TimeInterval = 5 * 60
    /// The options' `timeout` in milliseconds: `ceremonyTTL`, which `validate()` keeps within an hour, read
    /// without a trap for a configuration no one validated (at most that hour).
    var ceremonyTimeoutMilliseconds: Int {
        let milliseconds = (ceremonyTTL * 1000).rounded()
        return milliseconds.isFinite ? Int(min(max(milliseconds, 0), Self.maximumCeremonyTTL * 1000)) : Int(Self.maximumCeremonyTTL * 1000)
    }
    /// Passkeys one account may hold. Every account route, and Hanko's login without a credential id,
    /// does work in proportion to them: unbounded, one signed-in caller with 5 000 passkeys held the
    /// event loop for 90 ms a request (third review, findings 2 and 3). People have a handful; 100 is
    /// generous.
    public var maxPasskeysPerAccount = 100
    /// Adding a passkey needs a session at most this many seconds old: a passkey outlives every session,
    /// so a leaked session token must not be able to plant one (third review, finding 11). An older
    /// session gets 403 `recent_sign_in_required`, and the page asks for a passkey first
    /// (`--add-passkey-window`).
    public var addPasskeyWindow: TimeInterval = 10 * 60
    /// Days the audit trail keeps an event (`--audit-retention-days`); the housekeeping purges older ones.
    /// Ninety days covers the "was that me, last month?" question without keeping people's history forever.
    public var auditRetentionDays = 90
    public var userVerification = RelyingParty.UserVerificationPolicy.required
    public var attestation = AttestationPreference.none
    public var appleAppIds: [String] = []
    /// Android apps that may use these passkeys: published in `/.well-known/assetlinks.json`, and their
    /// `android:apk-key-hash:` origins accepted beside `origins`.
    public var androidApps: [AndroidApp] = []
    /// A login whose signature counter did not grow (§7.2 step 23, a possibly cloned authenticator) is
    /// refused by default; `.report` lets it through and counts it in `latchkey_possible_clones_total`,
    /// for fleets of authenticators whose counters are known to misbehave.
    public var signCountPolicy = RelyingParty.SignCountPolicy.reject
    /// Event-loop threads; every connection's handlers run on its loop (see `EventLoopPinnedChannel`).
    /// One by default: a login's work is short and its SQLite statements are serialized anyway, and a
    /// single loop never has to wake another thread — a quarter less CPU per login than two loops on
    /// the 2-core reference machine. More threads raise the ceiling on bigger machines; 0 means one per core.
    public var threads = 1
    /// The log lines' format; the level is `LOG_LEVEL`'s (info by default, a line per request).
    public var logFormat = LogFormat.logfmt
    /// Requests per minute one client address may make to the API, in bursts of up to as many (0: no
    /// limit). Ten a second is far above what a person's sign-in needs and far below a flood.
    public var rateLimit = 600
    /// Nil: shared in the database on PostgreSQL (several instances may share it), per instance on SQLite.
    public var rateLimitScope: RateLimitScope?
    /// How often an instance wakes up to purge expired sessions and used challenges; of the instances on
    /// one database, one does the work each time.
    public var housekeepingInterval: TimeInterval = 60
    /// How often, on SQLite, new names are moved into the admin search's index (`SearchIndexing`); not a
    /// setting of `latchkey serve` (a second keeps the pending rows the search reads one by one few), but
    /// the counts gate sets it far longer than its run, so that no round lands in a measured request.
    public var searchIndexingInterval: TimeInterval = 1
    /// Count requests against the address a reverse proxy appended to `X-Forwarded-For` (only behind a
    /// proxy that sets it: otherwise a client could pick its own address).
    public var trustForwardedFor = false
    /// Seconds a connection may stay open without a complete request part: an idle keep-alive
    /// connection, or a request head that never finishes (slowloris). 0: never closed for idling.
    public var idleTimeout: TimeInterval = 30
    /// Seconds a request head may take from its first byte to its last (0: only the idle time-out
    /// applies). Short, because a half-sent head costs its sender nothing (third review, finding 5);
    /// never longer than the idle time-out.
    public var headTimeout: TimeInterval = 10
    /// Open connections in all (0: no bound). Each holds a socket and buffers; at the bound a new
    /// connection takes the slot of the one that has waited longest without a complete request (see
    /// `ConnectionLimiter`), and is closed at once only when every connection is answering a request.
    public var maxConnections = 4096
    /// Open connections from one client address (an IPv6 /64 counts as one); not applied with
    /// `trustForwardedFor`, where every connection comes from the proxy. A browser opens at most six per
    /// host, so this leaves room for dozens of people behind one NAT.
    public var maxConnectionsPerClient = 256
    /// The certificate chain (PEM, the server's certificate first) that `latchkey serve` presents over
    /// HTTPS (`--tls-cert`, with `tlsKeyFile`): HTTP/2 or HTTP/1.1 by ALPN, Secure cookies and HSTS
    /// (`HTTPSChannel`). Nil: plain HTTP, for a reverse proxy to terminate TLS in front. Read again on
    /// SIGHUP (`ServerCertificate`), so a renewed certificate needs no restart.
    public var tlsCertificateFile: String?
    /// The certificate's private key (PEM, unencrypted; `--tls-key`), readable by its owner only.
    public var tlsKeyFile: String?

    /// Signed access tokens (JWT, ES256) for other backends: `POST /api/token` turns a session into one,
    /// `/.well-known/jwks.json` publishes the keys that verify them. Off by default.
    public var accessTokens = false
    /// Seconds an access token is valid: short, because a backend that verifies it offline learns of a
    /// logout only when it expires.
    public var accessTokenTTL: TimeInterval = 15 * 60
    /// Seconds each signing key signs before the next takes over (the previous one stays published until
    /// its tokens have expired).
    public var signingKeyLifetime: TimeInterval = 7 * 24 * 3600
    /// The tokens' `iss`; the first origin when nil.
    public var tokenIssuer: String?
    /// The tokens' `aud`, when the backends that accept them want one.
    public var tokenAudience: String?
    /// What backends present (`Authorization: Bearer …`) to ask `POST /api/introspect` about a token;
    /// introspection is off without one.
    public var introspectionSecret: String?
    /// Latchkey as an OpenID Connect provider (`OIDCProvider`): other apps sign people in through it.
    /// Off by default; clients are registered by an operator (`latchkey admin clients add`).
    public var oidc = false
    /// The provider's `iss`: the first origin when nil. Every endpoint in the discovery document is under it.
    public var oidcIssuer: String?
    /// The domain whose `acct:` resources `/.well-known/webfinger` answers for (Tailscale finds its issuer
    /// that way); off when nil.
    public var webfingerDomain: String?
    /// Seconds a refresh token (and with it a grant with `offline_access`) lives without being used: each
    /// use rotates it and starts the time again.
    public var oidcRefreshTTL: TimeInterval = 30 * 86400
    /// The clients the configuration file declares (`[[oidc-client]]`): `Latchkey.open` makes or updates
    /// each at start and marks it managed, and removes the managed clients the file no longer declares
    /// (`OIDCClientReconciliation`). Needs `oidc`.
    public var declaredOIDCClients: [OIDCDeclaredClient] = []
    /// The configuration file the declared clients come from, named in the admin API's refusals; nil
    /// (no file) leaves the managed clients as they are, so an instance started without the file removes none.
    public var declaredOIDCClientsFile: String?
    /// Who may make an account (`--signup`, `SignUpPolicy`): nil is `open` without OpenID Connect (the
    /// first `latchkey serve` lets a newcomer register) and `invite` with it — an identity provider whose
    /// accounts sign in to every app does not let strangers in by default (`effectiveSignUp`).
    public var signUp: SignUpPolicy?
    /// Domains whose people may sign up on their own under `--signup invite` (`--signup-domain`): they
    /// give an address there, and a single-use invitation link is mailed to it (`InvitationService.requestSignUp`).
    /// Needs `smtpURL`; empty by default.
    public var signUpDomains: [String] = []
    /// Authenticator policy (`AuthenticatorPolicy`): refuse passkeys without attestation (`none`, self);
    /// needs `attestation = direct`, or no authenticator is ever asked for one.
    public var requireAttestation = false
    /// Only these authenticators may register: AAGUIDs, or provider names from the bundled list.
    public var allowAAGUIDs: [String] = []
    /// These may not: AAGUIDs, or provider names.
    public var denyAAGUIDs: [String] = []
    /// Which passkeys may register by backup eligibility: any, synced (BE=1) or device-bound (BE=0).
    public var passkeyKinds = PasskeyKinds.any

    public enum PasskeyKinds: String, Sendable, CaseIterable {
        case any, synced
        case deviceBound = "device-bound"
    }

    /// A FIDO metadata BLOB (MDS3) to verify and load at start (`MetadataLoader`; `latchkey mds load` does
    /// the same while the server runs): registration then takes attestation roots for an AAGUID from it, and
    /// refuses models whose latest status report says they are compromised. Downloaded by the operator;
    /// Latchkey never fetches it. A BLOB older than the stored one is left unloaded (logged).
    public var mdsBlob: String?
    /// A PEM file of the root(s) the BLOB's chain must lead to; nil: the FIDO Alliance's, built in.
    public var mdsRoot: String?
    /// Hints (WebAuthn L3 §5.8.7) sent with the registration options, most preferred first: what the
    /// operator expects people to register with (`security-key` for a fleet of keys). Empty: none sent.
    public var registrationHints: [PublicKeyCredentialHint] = []
    /// The same for the login options.
    public var loginHints: [PublicKeyCredentialHint] = []
    /// The relying party's PRF input (`--prf-salt`, base64url; L3 §10.1.4): when set, every login's
    /// options ask the passkey to evaluate its PRF with it, and the outputs are handed back to the client
    /// with the session, never kept. Nil: only a client that sends its own salts gets outputs.
    public var prfSalt: String?

    /// A passkey added through a recovery grant ends every other session of the account
    /// (`--recovery-ends-sessions`, on): whoever lost the device may not be the only one holding it.
    public var recoveryEndsSessions = true
    /// Where Latchkey's mail goes (`--smtp-url`): `smtp://[user:password@]host[:port]`, `smtp+starttls://…` or `smtps://…`
    /// (`SMTPServer`). Nil: Latchkey sends no mail, and a person cannot give an email address.
    public var smtpURL: String?
    /// The mails' `From` (`--smtp-from`): `Name <address>` or an address; nil: the RP name at
    /// `noreply@` the RP ID.
    public var smtpFrom: String?
    /// A PEM file of the certificates that may sign the SMTP server's (`--smtp-ca-file`), instead of the
    /// system's: a relay with a private CA.
    public var smtpCAFile: String?
    /// Mail a recovery link to an account's verified address on request (`--recovery-email`, off): whoever
    /// controls the mailbox can then add a passkey. Needs `smtpURL`.
    public var recoveryEmail = false
    /// `HOST:PORT` where the admin API (`/api/admin/…`) is served instead of the main address
    /// (`--admin-listen`): an interface only operators reach. Nil: beside the rest of the API.
    public var adminListen: String?
    /// Where the audit trail's events are delivered (`--webhook-url`, repeatable); none by default.
    public var webhookEndpoints: [WebhookEndpoint] = []
    /// The key of the deliveries' HMAC-SHA256 signatures (`--webhook-secret-file`): at least 32 characters,
    /// needed with any endpoint, and the same on every instance.
    public var webhookSecret: String?
    /// Deliver also to loopback, private and link-local addresses (a receiver inside the network, tests).
    public var webhookAllowPrivate = false
    /// Attempts of one delivery before it is given up and logged.
    public var webhookMaxAttempts = 12
    /// The wait before a failed delivery's first retry; each further one waits twice as long (an hour at most).
    public var webhookRetryDelay: TimeInterval = 5
    /// Other projects' APIs served beside Latchkey's own, for their existing clients (off by default;
    /// see `CompatibilityAPI`).
    public var compatibility: Set<CompatibilityAPI> = []
    /// Where the PassKeysDemo-compatible API answers: the path of the PHP server's `index.php`.
    public var passKeysDemoPath = CompatibilityAPI.defaultPassKeysDemoPath
    /// `--cookie-domain`: the session cookie is sent to this domain and every name under it, so that one
    /// sign-in reaches the apps forward authentication protects (`ServerConfiguration+ForwardAuth.swift`).
    public var cookieDomain: String?
    /// `--forward-auth-rule`s, first match wins; none: every check is refused.
    public var forwardAuthRules: [ForwardAuthRule] = []
    /// The identity headers' names are this prefix and `User`, `Name`, `Email`, `Groups`.
    public var forwardAuthHeaderPrefix = "Remote-"
    /// Seconds the check keeps a session it found (`ForwardAuthCache`): the bound on how late a logout,
    /// a disabled account or a revocation stops passing. 0: the database is read on every check.
    public var forwardAuthCacheTTL: TimeInterval = 5

    public init() {}

    /// Browsers cap a cookie's Max-Age at 400 days (RFC 6265bis), so a longer session could not be kept
    /// by the page anyway; the cap also keeps every expiry time far inside what dates and integers hold.
    public static let maximumSessionTTL: TimeInterval = 400 * 24 * 3600
    /// A challenge is a one-time secret: WebAuthn recommends minutes (§5.4.4, 5–10 for a default
    /// ceremony); an hour is generous, and a pending ceremony is a stored row for all that time.
    public static let maximumCeremonyTTL: TimeInterval = 3600

    /// A setting that cannot be used (the type every layer throws for one; see `InvalidSetting`).
    public typealias Invalid = InvalidSetting

    /// `adminListen` as host and port; nil when unset or not `HOST:PORT`.
    public var adminAddress: (host: String, port: Int)? {
        guard let adminListen, let colon = adminListen.lastIndex(of: ":"), let port = Int(adminListen[adminListen.index(after: colon)...]),
              (0...65535).contains(port)
        else { return nil }
        var host = String(adminListen[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }

    /// Where the admin console is opened: with `--admin-listen`, the configured origin on its port (a
    /// passkey works there only when that origin is among `--origin`'s), else its address as typed; without,
    /// the first origin.
    var consoleOrigin: String {
        let first = origins.first.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } ?? "http://localhost:\(port)"
        guard let (host, adminPort) = adminAddress else { return first }
        if let match = origins.first(where: { URL(string: $0)?.port == adminPort }) {
            return match.hasSuffix("/") ? String(match.dropLast()) : match
        }
        return "\(servesTLS ? "https" : "http")://\(host.contains(":") ? "[\(host)]" : host):\(adminPort)"
    }

    /// Checks the settings of serving itself — the addresses, the RP and its origins, lifetimes, limits, the
    /// database's pool, time-outs, threads. Each feature checks its own settings in its folder
    /// (`ServerConfiguration+<Feature>.swift`), and `validate()` (Application/) asks them all: this folder names
    /// no feature's type.
    func validateServing() throws(Invalid) {
        guard (0...65535).contains(port) else { throw Invalid(description: "the port must be between 1 and 65535 (0: any free port), not \(port)") }
        guard !rpId.isEmpty, !rpId.contains("/"), !rpId.contains(":") else {
            throw Invalid(description: "the RP ID must be a bare domain such as example.com, not \"\(rpId)\"")
        }
        guard !origins.isEmpty else { throw Invalid(description: "at least one --origin is needed") }
        for origin in origins {
            guard let url = URLComponents(string: origin), let scheme = url.scheme, let host = url.host?.lowercased(),
                  scheme == "https" || scheme == "http", url.path.isEmpty || url.path == "/"
            else { throw Invalid(description: "the origin \"\(origin)\" is not of the form https://host[:port]") }
            guard host == rpId.lowercased() || host.hasSuffix("." + rpId.lowercased()) else {
                throw Invalid(description: "the origin \(origin) does not belong to the RP ID \(rpId): its host must be \(rpId) or end with .\(rpId)")
            }
        }
        guard sessionTTL > 0, sessionTTL <= Self.maximumSessionTTL else {
            throw Invalid(description: "the session lifetime must be between 1 and \(Int(Self.maximumSessionTTL)) seconds (400 days), not \(sessionTTL)")
        }
        guard ceremonyTTL > 0, ceremonyTTL <= Self.maximumCeremonyTTL else {
            throw Invalid(description: "the challenge lifetime must be between 1 and \(Int(Self.maximumCeremonyTTL)) seconds (one hour), not \(ceremonyTTL)")
        }
        guard (1...10_000).contains(maxPasskeysPerAccount) else {
            throw Invalid(description: "the passkeys per account must be between 1 and 10000, not \(maxPasskeysPerAccount)")
        }
        guard auditRetentionDays >= 1, auditRetentionDays <= 3650 else {
            throw Invalid(description: "the audit trail's retention must be between 1 and 3650 days, not \(auditRetentionDays)")
        }
        guard addPasskeyWindow >= 10, addPasskeyWindow <= Self.maximumSessionTTL else {
            throw Invalid(description: "the window for adding a passkey after signing in must be between 10 seconds and 400 days, not \(addPasskeyWindow)")
        }
        guard rateLimit >= 0 else { throw Invalid(description: "the rate limit must be 0 (none) or a number of requests per minute, not \(rateLimit)") }
        if rateLimitScope == .database, !database.isPostgres {
            throw Invalid(description: "a rate limit shared in the database (--rate-limit-scope database) needs a PostgreSQL database")
        }
        guard housekeepingInterval >= 0.1, housekeepingInterval <= 3600 else {
            throw Invalid(description: "the housekeeping interval must be between 0.1 and 3600 seconds, not \(housekeepingInterval)")
        }
        guard (1...1000).contains(databasePoolSize) else {
            throw Invalid(description: "the database pool must hold between 1 and 1000 connections, not \(databasePoolSize)")
        }
        guard databaseTimeout >= 0.1, databaseTimeout <= 600 else {
            throw Invalid(description: "the database time-out must be between 0.1 and 600 seconds, not \(databaseTimeout)")
        }
        guard idleTimeout >= 0, idleTimeout <= 3600 else {
            throw Invalid(description: "the idle time-out must be between 0 (none) and 3600 seconds, not \(idleTimeout)")
        }
        guard headTimeout >= 0, headTimeout <= 3600 else {
            throw Invalid(description: "the request-head time-out must be between 0 (none) and 3600 seconds, not \(headTimeout)")
        }
        guard maxConnections >= 0 else { throw Invalid(description: "the connection limit must be 0 (none) or a number of connections, not \(maxConnections)") }
        guard maxConnectionsPerClient >= 0 else {
            throw Invalid(description: "the per-client connection limit must be 0 (none) or a number of connections, not \(maxConnectionsPerClient)")
        }
        if let repeated = Dictionary(grouping: androidApps, by: \.packageName).first(where: { $0.value.count > 1 && Set($0.value.map(\.fingerprint)).count < $0.value.count }) {
            throw Invalid(description: "the Android app \(repeated.key) is given twice with the same fingerprint")
        }
        guard (0...256).contains(threads) else { throw Invalid(description: "the number of threads must be between 1 and 256 (0: one per core), not \(threads)") }
    }

    /// Whether `latchkey serve` speaks HTTPS itself (`--tls-cert` and `--tls-key`).
    public var servesTLS: Bool { tlsCertificateFile != nil && tlsKeyFile != nil }

    /// `https` when the server speaks TLS itself, else `http`: for the addresses it prints and logs.
    public var listeningScheme: String { servesTLS ? "https" : "http" }

    /// The scope the rate limit really has: as configured, else by the database.
    var effectiveRateLimitScope: RateLimitScope {
        rateLimitScope ?? (database.isPostgres ? .database : .instance)
    }

    /// The access tokens' issuer: as configured, else the first origin.
    var effectiveTokenIssuer: String { tokenIssuer ?? origins.first ?? "latchkey" }

    /// The OpenID Connect issuer: as configured, else the first origin; never with a trailing slash (the
    /// endpoints are the issuer followed by their paths).
    var effectiveOIDCIssuer: String {
        let issuer = oidcIssuer ?? origins.first ?? "http://localhost:8080"
        return issuer.hasSuffix("/") ? String(issuer.dropLast()) : issuer
    }

    /// The connection bounds to apply, or nil when there are none.
    var databaseLimits: DatabaseConnections.Limits {
        DatabaseConnections.Limits(poolSize: databasePoolSize, timeout: databaseTimeout)
    }

    var connectionLimiter: ConnectionLimiter? {
        let perClient = trustForwardedFor || maxConnectionsPerClient == 0 ? nil : maxConnectionsPerClient
        guard maxConnections > 0 || perClient != nil else { return nil }
        return ConnectionLimiter(total: maxConnections > 0 ? maxConnections : Int.max, perClient: perClient)
    }

    /// The idle time-out as NIO takes it; nil for none.
    var idleTimeAmount: TimeAmount? {
        idleTimeout > 0 ? .milliseconds(Int64(idleTimeout * 1000)) : nil
    }

    /// The key file in use: as configured, or the default for the database; nil for a key in memory.
    public var effectiveKeyFile: String? {
        if let keyFile { return keyFile }
        switch database {
        case .sqlite(let path): return URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("latchkey.key").path
        case .sqliteMemory: return nil
        case .postgres: return "latchkey.key"
        }
    }

    var keyFileDescription: String { effectiveKeyFile.map { "the key file \($0)" } ?? "this process's in-memory key" }

    /// The first head's deadline as NIO takes it: `headTimeout`, at most the idle time-out; nil for none.
    var headTimeAmount: TimeAmount? {
        let seconds = [headTimeout, idleTimeout].filter { $0 > 0 }.min()
        return seconds.map { .milliseconds(Int64($0 * 1000)) }
    }

    /// The event-loop threads to run: `threads`, or one per core when it is 0.
    var eventLoopThreads: Int { threads == 0 ? System.coreCount : threads }

    /// The relying party the verifiers check against.
    var relyingParty: RelyingParty {
        RelyingParty(
            id: rpId, name: rpName, origins: origins.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 } + androidApps.map(\.origin),
            userVerification: userVerification, signCountPolicy: signCountPolicy)
    }

    /// Whether the session cookie gets `Secure` (and the `__Host-` name): when the page is served over
    /// https, by a proxy in front (the first origin is https) or by this server itself (`servesTLS`).
    var secureCookies: Bool { servesTLS || (origins.first?.hasPrefix("https://") ?? false) }
}

