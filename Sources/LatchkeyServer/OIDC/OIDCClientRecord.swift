import Foundation
import LatchkeyDatabase
import SQLKit

/// An OpenID Connect client (relying party) as an operator registered it (`oidc_clients`): where codes
/// may be sent, where a person may be sent after logging out, whether it can keep a secret, how its
/// id_tokens are signed, whether it asks for consent, and what it may ask for. A confidential client's
/// secret is kept as its SHA-256 only (it is 256 random bits, so a plain digest is as good as a slow one).
struct OIDCClientRecord: Sendable, Equatable {
    /// The `client_id`.
    let id: String
    var name: String
    /// SHA-256 of the client secret; nil for a public client (a native or single-page app: PKCE instead).
    var secretHash: [UInt8]?
    /// Exact redirect URIs (compared as strings, OAuth 2.0 Security BCP §4.1.3).
    var redirectURIs: [String]
    /// Where `end_session_endpoint` may send the person afterwards (RP-Initiated Logout §3).
    var postLogoutURIs: [String]
    /// `ES256` or `RS256`: how this client's id_tokens are signed.
    var idTokenAlgorithm: String
    /// Operated by the same people as Latchkey: no consent screen.
    var firstParty: Bool
    /// The scopes it may be granted (a subset of `OIDCScope.supported`).
    var scopes: [String]
    /// When not empty, only members of one of these groups may sign in to it.
    var allowedGroups: [String]
    var createdAt: Date
    var updatedAt: Date
    /// `cli`, `admin:<key id>` or `configuration`.
    var createdBy: String
    /// The grants it may use (`OIDCGrantType`): `authorization_code` unless an operator allowed more.
    var grantTypes: [String] = [OIDCGrantType.authorizationCode]
    /// The API scopes an operator defined for it: all a client-credentials token may carry (no person's
    /// claims come with them).
    var apiScopes: [String] = []
    /// What its client-credentials tokens carry as `sid`: drawn anew when its secret changes, or when it
    /// revokes one of them, and checked by introspection, so each of those ends every such token (they
    /// hold no grant row to revoke). Empty until the client is first allowed `client_credentials`.
    var credentialsGeneration: String = ""
    /// The public keys (a JWKS document, as registered) its `private_key_jwt` assertions are signed with
    /// (RFC 7523); nil when it authenticates by secret, or not at all.
    var jwks: String? = nil
    /// Where its logout tokens are POSTed (Back-Channel Logout 1.0 §2.2) when a person's session ends on
    /// Latchkey or they take the app's access back; nil when it wants none.
    var backchannelLogoutURI: String? = nil
    /// The name its tokens carry the person's groups under (`groups`, `roles`, …).
    var groupsClaim: String = OIDCScope.groups
    /// The configuration file that declares it (`[[oidc-client]]`): the admin API and CLI refuse to change
    /// or remove it, and `latchkey serve` removes it when that file no longer declares it. Nil for a client
    /// an operator made by hand.
    var managedBy: String? = nil
    /// Where its `private_key_jwt` keys are published (a JWKS document at an https URL), instead of
    /// registered ones (`jwks`): fetched through `OIDCClientKeySets`.
    var jwksURI: String? = nil
    /// The type of its logo (`OIDCClientLogo`), nil when it has none; the bytes are read only to serve them.
    var logoType: String? = nil

    /// Neither a secret nor keys: it proves nothing at the token endpoint (PKCE instead).
    var isPublic: Bool { secretHash == nil && jwks == nil && jwksURI == nil }

    func allows(_ grantType: String) -> Bool { grantTypes.contains(grantType) }
}

extension OIDCClientRecord {
    /// An `oidc_clients` row (`SQL.oidcClientColumns`).
    init(row: any SQLRow) throws {
        self.init(
            id: try row.decode(column: "id", as: String.self),
            name: try row.decode(column: "name", as: String.self),
            secretHash: try row.decode(column: "secret_hash", as: Data?.self).map { Array($0) },
            redirectURIs: Self.list(try row.decode(column: "redirect_uris", as: String.self)),
            postLogoutURIs: Self.list(try row.decode(column: "post_logout_uris", as: String.self)),
            idTokenAlgorithm: try row.decode(column: "id_token_alg", as: String.self),
            firstParty: try row.decode(column: "first_party", as: Int.self) != 0,
            scopes: Self.list(try row.decode(column: "scopes", as: String.self)),
            allowedGroups: Self.list(try row.decode(column: "allowed_groups", as: String.self)),
            createdAt: Timestamp.date(try row.decode(column: "created_at", as: Int64.self)),
            updatedAt: Timestamp.date(try row.decode(column: "updated_at", as: Int64.self)),
            createdBy: try row.decode(column: "created_by", as: String.self),
            grantTypes: Self.list(try row.decode(column: "grant_types", as: String.self)),
            apiScopes: Self.list(try row.decode(column: "api_scopes", as: String.self)),
            credentialsGeneration: try row.decode(column: "credentials_generation", as: String.self),
            jwks: try row.decode(column: "jwks", as: String?.self),
            backchannelLogoutURI: try row.decode(column: "backchannel_logout_uri", as: String.self).nilIfEmpty,
            groupsClaim: try row.decode(column: "groups_claim", as: String.self),
            managedBy: try row.decode(column: "managed_by", as: String.self).nilIfEmpty,
            jwksURI: try row.decode(column: "jwks_uri", as: String.self).nilIfEmpty,
            logoType: try row.decode(column: "logo_type", as: String.self).nilIfEmpty)
    }

    /// Lists are stored space-separated (`SpaceSeparated`): neither a URI nor a scope or group name can hold a space.
    static func list(_ stored: String) -> [String] { SpaceSeparated.list(stored) }
    static func stored(_ list: [String]) -> String { SpaceSeparated.stored(list) }
}

extension String {
    /// nil for "" (a column that stores "none" as the empty string).
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
