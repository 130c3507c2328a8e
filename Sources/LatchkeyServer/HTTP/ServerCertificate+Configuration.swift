import LatchkeyTransport

extension ServerCertificate {
    /// The configuration's certificate; nil when it serves plain HTTP.
    convenience init?(_ configuration: ServerConfiguration) throws(ServerConfiguration.Invalid) {
        guard configuration.servesTLS, let certificate = configuration.tlsCertificateFile, let key = configuration.tlsKeyFile else { return nil }
        try self.init(certificatePath: certificate, keyPath: key)
    }
}
