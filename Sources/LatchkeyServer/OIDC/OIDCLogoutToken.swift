import Foundation
import JWTKit

/// A Back-Channel Logout token (OpenID Connect Back-Channel Logout 1.0 §2.4): signed like an id_token
/// with the provider's keys, typed `logout+jwt` (§2.4: so it cannot pass for an id_token), for one client
/// (`aud`). It names the person (`sub`) and, when a session ended, that session (`sid`, the id_tokens'
/// `sid`); `events` holds the one logout event; a `jti` the relying party can refuse twice; never a
/// `nonce` (§2.4: that is how an id_token could be told apart from it were the type ignored).
struct OIDCLogoutTokenClaims: JWTPayload, Equatable {
    static let event = "http://schemas.openid.net/event/backchannel-logout"
    static let type = "logout+jwt"
    /// How long after it is signed a relying party may accept it (§2.4's `exp`): two minutes, enough
    /// for a clock a little off; a delivery retried later is signed anew.
    static let lifetime: TimeInterval = 120

    let iss: IssuerClaim
    let sub: SubjectClaim?
    let aud: AudienceClaim
    let iat: IssuedAtClaim
    let exp: ExpirationClaim
    let jti: IDClaim
    let events: [String: [String: String]]
    let sid: String?

    init(issuer: String, clientId: String, accountId: String, sid: String?, jti: String, at date: Date) {
        let issued = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
        iss = IssuerClaim(value: issuer)
        sub = SubjectClaim(value: accountId)
        aud = AudienceClaim(value: [clientId])
        iat = IssuedAtClaim(value: issued)
        exp = ExpirationClaim(value: issued + Self.lifetime)
        self.jti = IDClaim(value: jti)
        events = [Self.event: [:]]
        self.sid = sid
    }

    func verify(using algorithm: some JWTAlgorithm) async throws {
        guard events[Self.event] != nil, sub != nil || sid != nil else {
            throw JWTError.claimVerificationFailure(failedClaim: jti, reason: "a logout token names the logout event and a sub or sid")
        }
    }
}
