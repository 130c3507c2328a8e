import Foundation

/// The forward-auth settings' checks and what is made of them.
extension ServerConfiguration {
    func validateForwardAuth() throws(Invalid) {
        if let cookieDomain {
            // Browsers refuse Domain= on a public suffix (com, co.uk); a name of one label is the likeliest
            // such mistake, and the only one that can be told without the public-suffix list.
            guard cookieDomain == cookieDomain.lowercased(), ForwardAuthReturnURL.isDomainName(cookieDomain), cookieDomain.contains(".") else {
                throw Invalid(description: "--cookie-domain must be a lower-case domain of at least two labels such as example.com, not \"\(ForwardAuthRule.printable(cookieDomain))\"")
            }
            guard rpId == cookieDomain || rpId.hasSuffix("." + cookieDomain) else {
                throw Invalid(description: "the cookie domain \(cookieDomain) must be the RP ID \(rpId) or a parent of it: the passkeys and the session belong to the same site")
            }
            for origin in origins {
                guard let host = URLComponents(string: origin)?.host?.lowercased(), host == cookieDomain || host.hasSuffix("." + cookieDomain) else {
                    throw Invalid(description: "the origin \(origin) is not under the cookie domain \(cookieDomain): the session cookie would not reach it")
                }
            }
        }
        guard !forwardAuthHeaderPrefix.isEmpty, forwardAuthHeaderPrefix.utf8.count <= 40,
              forwardAuthHeaderPrefix.unicodeScalars.allSatisfy({ ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") || $0 == "-" || $0 == "_" })
        else {
            throw Invalid(description: "--forward-auth-header-prefix must be 1 to 40 letters, digits, - or _ (Remote-, X-Auth-Request-), not \"\(ForwardAuthRule.printable(forwardAuthHeaderPrefix))\"")
        }
        guard (0...60).contains(forwardAuthCacheTTL) else {
            throw Invalid(description: "the forward-auth cache lifetime must be between 0 (none) and 60 seconds, not \(forwardAuthCacheTTL)")
        }
    }

    /// Where a return URL may lead: the cookie domain and the names under it, else the RP ID and its.
    var forwardAuthDomain: String { cookieDomain ?? rpId }
}
