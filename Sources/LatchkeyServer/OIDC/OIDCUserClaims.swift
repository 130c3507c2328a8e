import LatchkeyAPI

/// The claims about a person that the granted scopes release (Core §5.4): `profile` → `name` (the display
/// name) and `preferred_username`; `email` → `email` and `email_verified`; `groups` → `groups`. The same
/// in the id_token and at the UserInfo endpoint; `sub` is always there. `groups` goes under the name the
/// client chose (`groupsClaim`: `roles`, …); the custom claims operators set (`OIDCCustomClaim`) go when the
/// grant holds the scope that releases each, never over a claim Latchkey sets itself.
struct OIDCUserClaims: Sendable, Equatable {
    var name: String?
    var preferredUsername: String?
    var email: String?
    var emailVerified: Bool?
    var groups: [String]?
    var groupsClaim = OIDCScope.groups
    var custom: [String: String] = [:]

    init(profile: AccountProfile, scopes: [String], custom claims: [OIDCCustomClaim] = [], groupsClaim: String = OIDCScope.groups) {
        self.groupsClaim = groupsClaim
        for claim in claims where scopes.contains(claim.scope) && claim.name != groupsClaim {
            custom[claim.name] = claim.value
        }
        if scopes.contains(OIDCScope.profile) {
            name = profile.displayName
            preferredUsername = profile.username
        }
        if scopes.contains(OIDCScope.email), let email = profile.email {
            self.email = email
            emailVerified = profile.emailVerified
        }
        if scopes.contains(OIDCScope.groups) { groups = profile.groups }
    }

    /// What `accountId` releases to `client` under `scopes` (nil: no such account): the profile and the
    /// custom claims, read when the grant holds a scope that could release one.
    static func load(accountId: String, scopes: [String], client: OIDCClientRecord, store: Store) async throws -> OIDCUserClaims? {
        guard let profile = try await store.accountProfile(id: accountId) else { return nil }
        var custom: [OIDCCustomClaim] = []
        if !Set(scopes).isDisjoint(with: OIDCClaimRules.scopes) {
            custom = try await store.oidcClaims.released(accountId: accountId, groups: profile.groups)
        }
        return OIDCUserClaims(profile: profile, scopes: scopes, custom: custom, groupsClaim: client.groupsClaim)
    }

    func apply(to claims: inout IDTokenClaims) {
        claims.name = name
        claims.preferredUsername = preferredUsername
        claims.email = email
        claims.emailVerified = emailVerified
        claims.groups = groups
        claims.groupsClaim = groupsClaim
        claims.custom = custom
    }

    /// The UserInfo response (Core §5.3.2), `sub` first.
    func json(sub: String) -> [UInt8] {
        var json = JSONWriter()
        json.object { object in
            object.member("sub", sub)
            if let name { object.member("name", name) }
            if let preferredUsername { object.member("preferred_username", preferredUsername) }
            if let email { object.member("email", email) }
            if let emailVerified { object.member("email_verified", emailVerified) }
            if let groups { object.member(groupsClaim) { writer in writer.array(groups) { $0.string($1) } } }
            for (name, value) in custom.sorted(by: { $0.key < $1.key }) { object.member(name, value) }
        }
        return json.bytes
    }
}
