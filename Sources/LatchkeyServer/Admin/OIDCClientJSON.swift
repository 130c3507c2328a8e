import Foundation

/// An OpenID Connect client as the admin API answers and `latchkey admin clients … --json` prints it:
/// never its secret or the secret's digest, only whether it has one (`public`: it has none).
struct OIDCClientJSON: NullKeepingBody, Equatable {
    let id: String
    let name: String
    let `public`: Bool
    let redirectUris: [String]
    let postLogoutUris: [String]
    let idTokenAlg: String
    let firstParty: Bool
    let scopes: [String]
    let allowedGroups: [String]
    let grantTypes: [String]
    let apiScopes: [String]
    /// The public keys of its `private_key_jwt` assertions (a JWKS as JSON text), or null.
    let jwks: String?
    /// Where its back-channel logout tokens go, or null.
    let backchannelLogoutUri: String?
    /// The name its tokens carry the person's groups under.
    let groupsClaim: String
    /// The configuration file that declares it (`[[oidc-client]]`), or null: such a client is changed
    /// there, not through the admin API.
    let managedBy: String?
    /// Where its `private_key_jwt` keys are published, or null.
    let jwksUri: String?
    /// Where its logo is served (`/oidc/logo/{id}`), or null when it has none.
    let logo: String?
    let createdAt: Date
    let updatedAt: Date
    let createdBy: String

    init(_ client: OIDCClientRecord) {
        id = client.id
        name = client.name
        `public` = client.isPublic
        redirectUris = client.redirectURIs
        postLogoutUris = client.postLogoutURIs
        idTokenAlg = client.idTokenAlgorithm
        firstParty = client.firstParty
        scopes = client.scopes
        allowedGroups = client.allowedGroups
        grantTypes = client.grantTypes
        apiScopes = client.apiScopes
        jwks = client.jwks
        backchannelLogoutUri = client.backchannelLogoutURI
        groupsClaim = client.groupsClaim
        managedBy = client.managedBy
        jwksUri = client.jwksURI
        logo = client.logoType == nil ? nil : OIDCClientLogo.path(clientId: client.id)
        createdAt = client.createdAt
        updatedAt = client.updatedAt
        createdBy = client.createdBy
    }
}

/// A client after a change that may have given it a secret (creation, an update that made it
/// confidential, a rotation): `clientSecret` is the secret, in this answer only; null when no new one
/// was made. `grantsRevoked`: after a rotation, or an update that made the client public or
/// confidential, how many grants were revoked (null for the other changes).
struct OIDCClientSecretJSON: NullKeepingBody {
    let client: OIDCClientJSON
    let clientSecret: String?
    var grantsRevoked: Int? = nil
}
