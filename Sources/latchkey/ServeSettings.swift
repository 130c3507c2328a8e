import Foundation
import LatchkeyServer
import WebAuthn

/// Every setting of `latchkey serve`, each declared once: its flag, variable, file key, help, help line,
/// example-file line and the reading of its value all come from its entry (see `ServeSetting`).
///
/// A new setting is one entry here, the `ServerConfiguration` property it sets (its default, its check in
/// `validate()`), and its line in `latchkey.example.toml` (and so in docs/configuration.md), which a test compares
/// with the entry. The order here is the order of `latchkey serve --help`.
enum ServeSettings {
    static let all: [ServeSetting] = [
        .text("host", \.host, help: "Address to listen on"),
        .integer("port", \.port, help: "Port to listen on; 0: one the kernel chooses (give --origin too), printed as \"latchkey serve: listening on http://HOST:PORT\" (https with --tls-cert) on standard output"),
        .text("tls-cert", \.tlsCertificateFile, help: "Serve HTTPS (HTTP/2 or HTTP/1.1) with this PEM certificate chain, read again on SIGHUP; needs --tls-key",
              default: "none: plain HTTP"),
        .text("tls-key", \.tlsKeyFile, help: "The PEM private key of --tls-cert (chmod 600), read again on SIGHUP", default: "none"),
        .text("rp-id", \.rpId, help: "The relying party ID, a domain"),
        .text("rp-name", \.rpName, help: "The name shown by authenticators"),
        .text("default-language", \.defaultLanguage,
              help: "The language of the page and the mails when neither the person's choice nor Accept-Language names a shipped one (en, de, fr, es, pt-BR, ja, zh-Hans, ar, it, nl, pl)"),
        .text("brand-name", \.brandName, help: "The service's name on the page, the console and the mails", default: "--rp-name"),
        .text("brand-logo", \.brandLogo, help: "An SVG or PNG file (at most 512 KiB) the page and the console show in place of Latchkey's mark"),
        .text("brand-favicon", \.brandFavicon, help: "An SVG, PNG or ICO file (at most 512 KiB): the page's and the console's favicon"),
        .text("accent-color", \.accentColor, help: "The accent colour (#rrggbb) of the light scheme; refused below 4.5:1 contrast (WCAG AA) against the backgrounds it is used on",
              default: "Latchkey's, #1d58b8"),
        .text("accent-color-dark", \.accentColorDark, help: "The accent colour (#rrggbb) of the dark scheme, checked the same way", default: "Latchkey's, #8ab4f8"),
        .text("brand-css", \.brandCSS, help: "A stylesheet (at most 256 KiB) served after Latchkey's own; its selectors are not supported across versions, its colours not contrast-checked"),
        .list("origin", \.origins, help: "An origin allowed to use the passkeys", default: "http://localhost:PORT, https:// with --tls-cert", whenUnset: { c in
            guard c.port != 0 else {
                throw ServerConfiguration.Invalid(description: "with --port 0 give the passkeys' --origin too: its default, \(c.listeningScheme)://localhost:PORT, needs the port before the server has it")
            }
            c.origins = ["\(c.listeningScheme)://localhost:\(c.port)"]
        }),
        .list("apple-app-id", \.appleAppIds, help: "TEAMID.bundle.id of an Apple app allowed to use these passkeys"),
        .list("android-app", \.androidApps, help: "PACKAGE:SHA256_FINGERPRINT (AA:BB:…, as keytool prints it) of an Android app allowed to use these passkeys",
              parse: { try AndroidApp(parsing: $0) }, show: \.description),
        .database("database", \.database, help: "sqlite:PATH or postgres://user@host:port/database"),
        .integer("database-pool", \.databasePoolSize, help: "PostgreSQL connections per instance"),
        .seconds("database-timeout", \.databaseTimeout, whole: false, help: "Seconds a database operation may take before the request is a 503"),
        .text("key-file", \.keyFile, help: "The file whose key wraps the secret keys kept in the database, made (chmod 600) when absent; every instance on one database needs the same",
              default: "latchkey.key beside the SQLite file, ./latchkey.key for PostgreSQL"),
        .seconds("session-ttl", \.sessionTTL, help: "Session lifetime in seconds"),
        .seconds("challenge-ttl", \.ceremonyTTL, help: "Challenge lifetime in seconds"),
        .choice("user-verification", \.userVerification, [("required", .required), ("preferred", .preferred)],
                help: "Whether authenticators must verify the user (PIN, biometrics) or only should"),
        .choice("attestation", \.attestation, help: "Whether to ask authenticators for attestation, and record its verified format and AAGUID"),
        .choice("sign-count", \.signCountPolicy, [("reject", .reject), ("warn", .report)],
                help: "A login whose signature counter did not grow: reject it, or warn (let it through, count it)"),
        .flag("require-attestation", \.requireAttestation, help: "Refuse passkeys whose authenticator does not prove its make (none or self attestation); needs --attestation direct"),
        .list("allow-aaguid", \.allowAAGUIDs, help: "Only authenticators with this AAGUID (or provider name from the bundled list) may register"),
        .list("deny-aaguid", \.denyAAGUIDs, help: "Authenticators with this AAGUID (or provider name) may not register"),
        .choice("passkeys", \.passkeyKinds, help: "Which passkeys may register: any, synced (BE=1) or device-bound (BE=0)"),
        .text("mds-blob", \.mdsBlob, help: "A FIDO metadata BLOB (downloaded from https://mds3.fidoalliance.org/) to verify and load at start: attestation roots and compromised models by AAGUID"),
        .text("mds-root", \.mdsRoot, help: "A PEM file of the root the metadata BLOB must chain to", default: "the FIDO Alliance's, built in"),
        .choices("registration-hints", \.registrationHints,
                 help: "Hints sent with the registration options, most preferred first: what browsers should offer to make the passkey with (WebAuthn L3 §5.8.7)"),
        .choices("login-hints", \.loginHints, help: "Hints sent with the login options, most preferred first"),
        .text("prf-salt", \.prfSalt,
              help: "A PRF input (base64url, 1 to 64 bytes) every login asks passkeys to evaluate; the outputs go back to the client, never stored or logged",
              default: "none: only a client's own inputs"),
        .integer("max-passkeys-per-account", \.maxPasskeysPerAccount, help: "Passkeys one account may hold"),
        .seconds("add-passkey-window", \.addPasskeyWindow, help: "Seconds after a passkey sign-in in which that session may add a passkey"),
        .integer("threads", \.threads, help: "Event-loop threads serving connections; 0: one per core"),
        .choice("log-format", \.logFormat, help: "Log lines as logfmt (key=value) or as one JSON object each"),
        .integer("rate-limit", \.rateLimit, help: "API requests per minute per client address, in bursts of as many; 0: no limit"),
        .choice("rate-limit-scope", \.rateLimitScope,
                help: "Count per process (instance), or once for the instances on a PostgreSQL database (database)",
                default: "database on PostgreSQL, instance on SQLite"),
        .flag("trust-forwarded-for", \.trustForwardedFor, help: "Behind a reverse proxy: count requests against the last X-Forwarded-For address"),
        .seconds("idle-timeout", \.idleTimeout, help: "Seconds a connection may stay open without a complete request part; 0: none"),
        .seconds("head-timeout", \.headTimeout, help: "Seconds a request head may take from its first byte to its end; 0: none; never more than the idle time-out"),
        .integer("max-connections", \.maxConnections, help: "Open connections in all; 0: no limit"),
        .integer("max-connections-per-client", \.maxConnectionsPerClient, help: "Open connections per client address; 0: no limit; not applied with --trust-forwarded-for"),
        .seconds("housekeeping-interval", \.housekeepingInterval, whole: false,
                 help: "Seconds between purges of expired sessions and challenges; one instance per database does each"),
        .integer("audit-retention-days", \.auditRetentionDays, help: "Days the audit trail keeps an event; older ones are purged by the housekeeping"),
        .flag("access-tokens", \.accessTokens, help: "Issue signed access tokens (JWT, ES256) from sessions at POST /api/token, keys at /.well-known/jwks.json"),
        .seconds("access-token-ttl", \.accessTokenTTL, help: "Seconds an access token is valid"),
        .seconds("signing-key-lifetime", \.signingKeyLifetime, help: "Seconds each access-token signing key signs before the next one takes over"),
        .text("token-issuer", \.tokenIssuer, help: "The access tokens' iss claim", default: "the first origin"),
        .text("token-audience", \.tokenAudience, help: "The access tokens' aud claim"),
        .secret("introspection-secret", \.introspectionSecret,
                help: "the secret (32+ characters) backends present to POST /api/introspect; introspection is off without one"),
        .flag("oidc", \.oidc, help: "Be an OpenID Connect provider: other apps sign people in through Latchkey (clients: latchkey admin clients add)"),
        .text("oidc-issuer", \.oidcIssuer, help: "The OpenID Connect issuer (https URL; the endpoints are under it)", default: "the first origin"),
        .text("webfinger-domain", \.webfingerDomain, help: "Answer /.well-known/webfinger for acct:…@DOMAIN with the OpenID Connect issuer"),
        .seconds("oidc-refresh-ttl", \.oidcRefreshTTL, help: "Seconds an unused refresh token lives (each use rotates it)"),
        .choice("signup", \.signUp,
                help: "Who may make an account: anyone (open), the holder of an invitation (invite: latchkey admin invites create) or nobody but an operator (closed: latchkey admin accounts create)",
                default: "invite with --oidc, open otherwise"),
        .list("signup-domain", \.signUpDomains,
              help: "A domain whose people may sign up on their own (with --signup invite): they give an address there and a single-use link is mailed to it (needs --smtp-url)"),
        .flag("recovery-ends-sessions", \.recoveryEndsSessions,
              help: "A passkey added through a recovery grant ends every other session of the account (false: only the recovery session)"),
        .text("smtp-url", \.smtpURL,
              help: "Send mail through this SMTP server: smtp://[user:password@]host[:port] (STARTTLS when offered, not on loopback), smtp+starttls://… (STARTTLS required, even on loopback) or smtps://…; a URL with a password is better given in LATCHKEY_SMTP_URL"),
        .text("smtp-from", \.smtpFrom, help: "The mails' sender: an address, or Name <address>", default: "the RP name at noreply@RP-ID"),
        .text("smtp-ca-file", \.smtpCAFile, help: "A PEM file of the CA certificates to trust for the SMTP server's TLS instead of the system's"),
        .flag("recovery-email", \.recoveryEmail,
              help: "Mail a recovery link to an account's verified address when asked (whoever controls the mailbox can add a passkey); needs --smtp-url"),
        .text("admin-listen", \.adminListen, help: "HOST:PORT on which to serve the admin API (/api/admin/…) instead of the main address",
              default: "beside the rest of the API"),
        .list("webhook-url", \.webhookEndpoints, help: "An http(s) URL the audit trail's events are POSTed to, signed (HMAC-SHA256)",
              parse: { text in
                  guard let endpoint = WebhookEndpoint(parsing: text) else {
                      throw ServerConfiguration.Invalid(description: "the webhook URL \(text) is not an http or https URL with a host (and no user or password)")
                  }
                  return endpoint
              }, show: \.description),
        .secret("webhook-secret", \.webhookSecret, help: "the key (32+ characters) of the webhooks' HMAC-SHA256 signatures; the same on every instance"),
        .flag("webhook-allow-private", \.webhookAllowPrivate, help: "Also deliver webhooks to loopback, private, link-local, multicast and reserved addresses"),
        .integer("webhook-max-attempts", \.webhookMaxAttempts, help: "Attempts of one webhook delivery before it is given up and logged"),
        .seconds("webhook-retry-delay", \.webhookRetryDelay, help: "Seconds before a failed delivery's first retry; each further one waits twice as long"),
        .text("cookie-domain", \.cookieDomain,
              help: "Send the session cookie to this domain and every name under it (the RP ID or a parent of it): one sign-in for the apps forward authentication protects",
              default: "none: this host only"),
        .list("forward-auth-rule", \.forwardAuthRules,
              help: "Who may pass GET /api/forward-auth: HOST[/PATH] then signed-in, groups=A|B or deny, then optionally max-age=SECONDS; first match wins, no match is refused",
              parse: { try ForwardAuthRule(parsing: $0) }, show: \.description),
        .text("forward-auth-header-prefix", \.forwardAuthHeaderPrefix, help: "The prefix of the identity headers the check answers with (User, Name, Email, Groups)"),
        .seconds("forward-auth-cache-ttl", \.forwardAuthCacheTTL, whole: false,
                 help: "Seconds the check keeps a session it found: how late a logout, a disabled account or a revocation stops passing; 0: none"),
        .choices("compat", \.compatibility, help: "Also serve another project's API for its existing clients"),
        .text("compat-passkeysdemo-path", \.passKeysDemoPath, help: "Where the PassKeysDemo-compatible API answers"),
    ]

    /// `--config`, which names the file rather than setting anything itself.
    static let configFlag = "--config"
    static let configVariable = "LATCHKEY_CONFIG"
    static let configHelp = "A TOML file of these settings, each named as its flag (port = 8080); a flag or variable wins over it."
}
