import LatchkeyAPI

/// The claims about a person that the granted scopes release (Core §5.4): `profile` → `name` (the display
/// name) and `preferred_username`; `email` → `email` and `email_verified`; `groups` → `groups`. The same
/// in the id_token and at the UserInfo endpoint; `sub` is always there.
struct OIDCUserClaims: Sendable, Equatable {
    var name: String?
    var preferredUsername: String?
    var email: String?
    var emailVerified: Bool?
    var groups: [String]?

    init(profile: AccountProfile, scopes: [String]) {
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

    func apply(to claims: inout IDTokenClaims) {
        claims.name = name
        claims.preferredUsername = preferredUsername
        claims.email = email
        claims.emailVerified = emailVerified
        claims.groups = groups
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
            if let groups { object.member("groups") { writer in writer.array(groups) { $0.string($1) } } }
        }
        return json.bytes
    }
}
