import Foundation

extension ServerConfiguration {
    /// OpenID Connect's settings: the issuer (`OIDCIssuerRules`), the webfinger domain, the refresh tokens' lifetime.
    func validateOIDC() throws(Invalid) {
        if let oidcIssuer, OIDCIssuerRules.problem(oidcIssuer) != nil {
            throw Invalid(description: "the OpenID Connect issuer \(oidcIssuer) \(OIDCIssuerRules.problem(oidcIssuer) ?? "")")
        }
        if oidc, OIDCIssuerRules.problem(effectiveOIDCIssuer) != nil {
            throw Invalid(description: "the OpenID Connect issuer \(effectiveOIDCIssuer) (the first origin) \(OIDCIssuerRules.problem(effectiveOIDCIssuer) ?? ""); give --oidc-issuer")
        }
        if let webfingerDomain, webfingerDomain.isEmpty || webfingerDomain.contains(where: { !($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }) {
            throw Invalid(description: "the webfinger domain must be a domain name (example.com), not \(webfingerDomain)")
        }
        guard oidcRefreshTTL >= 3600, oidcRefreshTTL <= 366 * 86400 else {
            throw Invalid(description: "the refresh token lifetime must be between an hour and a year, not \(oidcRefreshTTL) s")
        }
    }
}
