import Crypto
import Foundation
import JWTKit
import WebAuthn

/// An id_token's claims (OpenID Connect Core §2, §3.1.3.6): who (`sub`, the account id — stable, never
/// reassigned), for whom (`aud` and `azp`, the client), when and how the person signed in (`auth_time`,
/// `amr`), the request's `nonce`, `at_hash` binding the access token issued with it, and the profile
/// claims the granted scopes release (Core §5.4; they are also at the UserInfo endpoint). `sid` names the
/// Latchkey session the person signed in with (`OIDCSessionID`), which back-channel logout tokens name too.
struct IDTokenClaims: JWTPayload, Equatable {
    let iss: IssuerClaim
    let sub: SubjectClaim
    let aud: AudienceClaim
    let exp: ExpirationClaim
    let iat: IssuedAtClaim
    let authTime: Int64
    var nonce: String?
    let amr: [String]
    let azp: String
    var atHash: String?
    var name: String?
    var preferredUsername: String?
    var email: String?
    var emailVerified: Bool?
    var groups: [String]?
    var sid: String?
    /// The name `groups` goes under (the client's choice); not read back from a token.
    var groupsClaim = OIDCScope.groups
    /// The custom claims released to the client (`OIDCUserClaims`); not read back from a token.
    var custom: [String: String] = [:]

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, nonce, amr, azp, name, email, groups, sid
        case authTime = "auth_time"
        case atHash = "at_hash"
        case preferredUsername = "preferred_username"
        case emailVerified = "email_verified"
    }

    /// The claims as written: the standard ones by `CodingKeys`, `groups` under `groupsClaim`, then the
    /// custom ones (their names are never the standard ones: `OIDCClaimRules.reserved`).
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: ClaimName.self)
        try container.encode(iss, forKey: ClaimName("iss"))
        try container.encode(sub, forKey: ClaimName("sub"))
        try container.encode(aud, forKey: ClaimName("aud"))
        try container.encode(exp, forKey: ClaimName("exp"))
        try container.encode(iat, forKey: ClaimName("iat"))
        try container.encode(authTime, forKey: ClaimName("auth_time"))
        try container.encodeIfPresent(nonce, forKey: ClaimName("nonce"))
        try container.encode(amr, forKey: ClaimName("amr"))
        try container.encode(azp, forKey: ClaimName("azp"))
        try container.encodeIfPresent(atHash, forKey: ClaimName("at_hash"))
        try container.encodeIfPresent(name, forKey: ClaimName("name"))
        try container.encodeIfPresent(preferredUsername, forKey: ClaimName("preferred_username"))
        try container.encodeIfPresent(email, forKey: ClaimName("email"))
        try container.encodeIfPresent(emailVerified, forKey: ClaimName("email_verified"))
        try container.encodeIfPresent(groups, forKey: ClaimName(groupsClaim))
        try container.encodeIfPresent(sid, forKey: ClaimName("sid"))
        for (name, value) in custom.sorted(by: { $0.key < $1.key }) { try container.encode(value, forKey: ClaimName(name)) }
    }

    /// Any claim's name, as a coding key.
    struct ClaimName: CodingKey {
        let stringValue: String
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        var intValue: Int? { nil }
        init?(intValue: Int) { nil }
    }

    /// Times are checked by the caller with its own clock (an expired hint is still a hint).
    func verify(using algorithm: some JWTAlgorithm) async throws {
        guard !sub.value.isEmpty, aud.value.count == 1 else {
            throw JWTError.claimVerificationFailure(failedClaim: sub, reason: "a Latchkey id_token names an account and one client")
        }
    }

    /// Core §3.1.3.6: the base64url of the left half of the SHA-256 of the access token's ASCII (both
    /// ES256 and RS256 hash with SHA-256).
    static func hash(ofAccessToken token: String) -> String {
        Base64URL.encode(Array(SHA256.hash(data: Array(token.utf8)).prefix(16)))
    }
}
