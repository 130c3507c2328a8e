import Foundation

extension ServerConfiguration {
    /// OpenID Connect's settings: the issuer (`OIDCIssuerRules`), the webfinger domain, the refresh tokens'
    /// lifetime, and the declared clients (each by the rules `latchkey admin clients add` applies).
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
        if !declaredOIDCClients.isEmpty, !oidc {
            throw Invalid(description: "\(declaredOIDCClientsPlace) declares OpenID Connect clients ([[oidc-client]]) but the provider is off: set oidc = true (--oidc)")
        }
        var seen: Set<String> = []
        for (index, client) in declaredOIDCClients.enumerated() {
            guard seen.insert(client.id).inserted else {
                throw Invalid(description: "\(declaredOIDCClientsPlace) declares the OpenID Connect client \(client.id) twice ([[oidc-client]] number \(index + 1))")
            }
            _ = try client.record(managedBy: declaredOIDCClientsPlace, at: Date(timeIntervalSince1970: 0), entry: index + 1)
        }
    }
}

extension ServerConfiguration {
    /// Where the declared clients come from, for sentences and `managed_by`.
    var declaredOIDCClientsPlace: String { declaredOIDCClientsFile ?? "the configuration" }
}
