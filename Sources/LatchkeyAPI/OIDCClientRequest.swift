import WebAuthn

/// `POST /api/admin/clients` (every member but `id`, `public`, `postLogoutUris`, `idTokenAlg`,
/// `firstParty`, `scopes` and `allowedGroups` required; `OIDCClientRules` says which member is wrong and
/// why) and `PATCH /api/admin/clients/{clientId}` (the members sent replace the stored ones).
package struct OIDCClientRequest: JSONReadable, Sendable, Equatable {
    /// A chosen client id; generated when left out (creation only).
    package var id: String?
    package var name: String?
    package var redirectUris: [String]?
    package var postLogoutUris: [String]?
    /// True: a public client (no secret; PKCE). False on an update of a public client gives it a secret.
    package var isPublic: Bool?
    package var idTokenAlg: String?
    package var firstParty: Bool?
    package var scopes: [String]?
    package var allowedGroups: [String]?
    /// The grants it may use: `authorization_code`, `client_credentials`, the device flow's URN (or
    /// `device_code`).
    package var grantTypes: [String]?
    /// The API scopes a client-credentials token of it may carry.
    package var apiScopes: [String]?
    /// The public keys of its `private_key_jwt` assertions: a JWKS document as JSON text ("" removes them).
    package var jwks: String?
    /// Where its back-channel logout tokens go ("" removes it).
    package var backchannelLogoutUri: String?
    /// The name its tokens carry the person's groups under (default `groups`).
    package var groupsClaim: String?
    /// Where its `private_key_jwt` keys are published ("" removes it).
    package var jwksUri: String?
    /// Its logo: a PNG or SVG file's bytes in base64 ("" removes it).
    package var logo: String?

    package init(
        id: String? = nil, name: String? = nil, redirectUris: [String]? = nil, postLogoutUris: [String]? = nil, isPublic: Bool? = nil,
        idTokenAlg: String? = nil, firstParty: Bool? = nil, scopes: [String]? = nil, allowedGroups: [String]? = nil,
        grantTypes: [String]? = nil, apiScopes: [String]? = nil, jwks: String? = nil,
        backchannelLogoutUri: String? = nil, groupsClaim: String? = nil, jwksUri: String? = nil, logo: String? = nil
    ) {
        self.id = id
        self.name = name
        self.redirectUris = redirectUris
        self.postLogoutUris = postLogoutUris
        self.isPublic = isPublic
        self.idTokenAlg = idTokenAlg
        self.firstParty = firstParty
        self.scopes = scopes
        self.allowedGroups = allowedGroups
        self.grantTypes = grantTypes
        self.apiScopes = apiScopes
        self.jwks = jwks
        self.backchannelLogoutUri = backchannelLogoutUri
        self.groupsClaim = groupsClaim
        self.jwksUri = jwksUri
        self.logo = logo
    }

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        id = try reader.optionalString("id")
        name = try reader.optionalString("name")
        redirectUris = try reader.optionalStringArray("redirectUris")
        postLogoutUris = try reader.optionalStringArray("postLogoutUris")
        isPublic = try reader.optionalBool("public")
        idTokenAlg = try reader.optionalString("idTokenAlg")
        firstParty = try reader.optionalBool("firstParty")
        scopes = try reader.optionalStringArray("scopes")
        allowedGroups = try reader.optionalStringArray("allowedGroups")
        grantTypes = try reader.optionalStringArray("grantTypes")
        apiScopes = try reader.optionalStringArray("apiScopes")
        jwks = try reader.optionalString("jwks")
        backchannelLogoutUri = try reader.optionalString("backchannelLogoutUri")
        groupsClaim = try reader.optionalString("groupsClaim")
        jwksUri = try reader.optionalString("jwksUri")
        logo = try reader.optionalString("logo")
    }
}

/// `PUT /api/admin/accounts/{id}/claims/{name}` and `PUT /api/admin/groups/{group}/claims/{name}`: the
/// claim's value (required) and the scope that releases it (`profile` unless given).
package struct OIDCClaimRequest: JSONReadable, Sendable, Equatable {
    package var value: String
    package var scope: String?

    package init(value: String, scope: String? = nil) {
        self.value = value
        self.scope = scope
    }

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        value = try reader.string("value")
        scope = try reader.optionalString("scope")
    }
}
