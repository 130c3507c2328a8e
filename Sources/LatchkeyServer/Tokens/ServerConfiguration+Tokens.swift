import Foundation

extension ServerConfiguration {
    /// The access tokens' settings: their lifetime, the signing keys' and the introspection secret's strength.
    func validateTokens() throws(Invalid) {
        guard accessTokenTTL >= 30, accessTokenTTL <= 24 * 3600 else {
            throw Invalid(description: "the access token lifetime must be between 30 seconds and one day, not \(accessTokenTTL)")
        }
        guard signingKeyLifetime >= accessTokenTTL, signingKeyLifetime >= 3600, signingKeyLifetime <= 366 * 86400 else {
            throw Invalid(description: "a signing key must sign for at least an hour, at most a year, and at least as long as a token lives (\(accessTokenTTL) s), not \(signingKeyLifetime) s")
        }
        if let introspectionSecret, introspectionSecret.utf8.count < 32 {
            throw Invalid(description: "the introspection secret must be at least 32 characters (it is all that keeps token scanners out), not \(introspectionSecret.utf8.count)")
        }
        // Length alone lets "passwordpasswordpasswordpassword" through (SECURITY-FINDINGS-3.md §12): a random
        // secret of 32 characters has about 20 different ones, a repeated word a handful.
        if let introspectionSecret, Set(introspectionSecret.unicodeScalars).count < 10 {
            throw Invalid(description: "the introspection secret uses only \(Set(introspectionSecret.unicodeScalars).count) different characters; make a random one (openssl rand -base64 32)")
        }
    }
}
