import Foundation
import LatchkeyTransport

extension ServerConfiguration {
    /// Checks the values that can be checked without the network or the database, each where it is used:
    /// serving's own in `Configuration/`, each feature's in its folder (`ServerConfiguration+<Feature>.swift`),
    /// the TLS files in the transport. Here, in the composition root, so that `Configuration/` names no feature.
    /// The first problem is thrown, in one sentence that names the setting.
    public func validate() throws(Invalid) {
        try validateServing()
        try validateTokens()
        try validateOIDC()
        try validatePasskeys()
        try validateMail()
        try validateSignUpDomains()
        try validateAdmin()
        try validateWebhooks()
        try validateForwardAuth()
        try validateCompatibility()
        try ServerCertificate.checkFiles(certificate: tlsCertificateFile, key: tlsKeyFile)
    }
}
