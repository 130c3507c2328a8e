import Foundation
import LatchkeyAPI
import LatchkeyRuntime

extension OIDCDeclaredClient {
    /// The client as it is stored, managed by `file`: every rule of `latchkey admin clients add` applied,
    /// and the secret's presence checked against the kind of client. A refusal names the entry (the
    /// `entry`th `[[oidc-client]]` of `file`) and the rule.
    func record(managedBy file: String, at now: Date, entry: Int) throws(InvalidSetting) -> OIDCClientRecord {
        let place = "the OpenID Connect client \(id) ([[oidc-client]] number \(entry) in \(file))"
        func refuse(_ why: String) -> InvalidSetting { InvalidSetting(description: "\(place) \(why)") }
        let keys = jwks != nil || jwksURI != nil
        if isPublic, secretHash != nil || keys {
            throw refuse("is public (public = true) but has a secret or keys: leave out secret-hash, secret-file, jwks and jwks-uri")
        }
        if secretHash != nil, keys {
            throw refuse("has both a secret and keys (jwks, jwks-uri): a client with keys signs its assertions and has no secret")
        }
        if !isPublic, secretHash == nil, !keys {
            throw refuse("is confidential but has no secret: give secret-file (a file holding it, chmod 600) or secret-hash (\"sha256:…\"), or public = true")
        }
        let request = OIDCClientRequest(
            id: id, name: name, redirectUris: redirectURIs, postLogoutUris: postLogoutURIs, isPublic: isPublic, idTokenAlg: idTokenAlg,
            firstParty: firstParty, scopes: scopes, allowedGroups: allowedGroups, grantTypes: grantTypes, apiScopes: apiScopes,
            jwks: jwks, backchannelLogoutUri: backchannelLogoutURI, groupsClaim: groupsClaim, jwksUri: jwksURI)
        do {
            var client = try OIDCClientRules.newClient(
                request, id: try OIDCClientRules.clientId(id), secretHash: secretHash, at: now, by: Self.actor)
            client.managedBy = file
            return client
        } catch {
            throw refuse("breaks a rule (\(error.code)): \(error.message)")
        }
    }
}
