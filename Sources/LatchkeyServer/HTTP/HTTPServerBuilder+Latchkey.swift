import Hummingbird
import HummingbirdCore
import LatchkeyTransport

extension HTTPServerBuilder {
    /// `latchkey serve`'s connection handling for an application that embeds Latchkey: idle, first-head
    /// and body deadlines and the connection bounds, all from `configuration` (`idleTimeout`,
    /// `headTimeout`, `maxConnections`, `maxConnectionsPerClient`, `trustForwardedFor`). Without it a
    /// host application has none of these protections (third review, finding 9):
    ///
    /// ```swift
    /// Application(router: router, server: .latchkey(configuration), configuration: …)
    /// ```
    ///
    /// With `tlsCertificateFile` and `tlsKeyFile` it serves HTTPS, HTTP/2 or HTTP/1.1 by ALPN
    /// (`HTTPSChannel`); the files are read when the server is built, and a mistake in them is the
    /// server's error then. (`latchkey serve` also reloads them on SIGHUP.)
    public static func latchkey(_ configuration: ServerConfiguration) -> HTTPServerBuilder {
        latchkey(configuration, certificate: nil)
    }

    /// As `latchkey(_:)`, presenting `certificate` (which `CertificateReloadService` may reload) when
    /// the configuration serves TLS; nil reads the configuration's files.
    static func latchkey(_ configuration: ServerConfiguration, certificate: ServerCertificate?) -> HTTPServerBuilder {
        guard configuration.servesTLS else {
            return pinnedHTTP1(idleTimeout: configuration.idleTimeAmount, headTimeout: configuration.headTimeAmount, limiter: configuration.connectionLimiter)
        }
        let limiter = configuration.connectionLimiter
        return HTTPServerBuilder { responder in
            guard let certificate = try certificate ?? ServerCertificate(configuration) else {
                throw ServerConfiguration.Invalid(description: "--tls-cert and --tls-key go together")
            }
            return HTTPSChannel(
                responder: responder, certificate: certificate, limiter: limiter,
                idleTimeout: configuration.idleTimeAmount, headTimeout: configuration.headTimeAmount)
        }
    }
}
