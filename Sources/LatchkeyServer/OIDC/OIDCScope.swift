/// The scopes Latchkey's OpenID Connect provider knows (Core §5.4) and the claims each releases.
enum OIDCScope {
    static let openid = "openid"
    static let profile = "profile"
    static let email = "email"
    static let groups = "groups"
    /// Refresh tokens (Core §11): only a grant with it gets one.
    static let offlineAccess = "offline_access"

    /// In the order the discovery document lists them.
    static let supported = [openid, profile, email, groups, offlineAccess]

    /// Every claim an id_token or the UserInfo endpoint may carry.
    static let claims = [
        "sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "amr", "azp", "at_hash", "name", "preferred_username", "email",
        "email_verified", "groups",
    ]
}
