import Foundation
import JWTKit

/// What a Latchkey access token says (RFC 7519 claims, with OpenID Connect's `auth_time` and RFC 8176's
/// `amr`): who signed in (`sub`, the account id), when the passkey ceremony happened, and how — a
/// passkey is proof of possession of a key (`hwk` when it is bound to one device, `swk` when it can be
/// synced: backup-eligible keys live in a password manager's software), the user's presence (`user`)
/// and, when the authenticator verified the user (biometrics or PIN on top of possession), `mfa`.
/// `sid` names the session (the first 16 bytes of its token's SHA-256), so introspection can say a
/// token is no longer active once its session has ended.
struct AccessTokenClaims: JWTPayload, Equatable {
    let iss: IssuerClaim
    let sub: SubjectClaim
    let aud: AudienceClaim?
    let exp: ExpirationClaim
    let iat: IssuedAtClaim
    /// When a person signed in; nil for a client-credentials token, which no person is behind.
    let authTime: Int64?
    /// How; nil with `authTime`.
    let amr: [String]?
    /// A session's hash prefix, or for the OpenID Connect provider's tokens the grant's id (for a
    /// client-credentials token, the client's `credentialsGeneration`).
    let sid: String
    let jti: IDClaim
    /// The OpenID Connect client the token was issued to (RFC 9068 §2.2); nil for `POST /api/token`'s.
    var clientId: String? = nil
    /// The scopes granted to that client, space-separated.
    var scope: String? = nil

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, amr, sid, jti, scope
        case authTime = "auth_time"
        case clientId = "client_id"
    }

    /// Called by JWTKit after the signature checked out. The times are checked by `AccessTokenIssuer`
    /// with its own clock (tests move it), so here only what does not depend on the time.
    func verify(using algorithm: some JWTAlgorithm) async throws {
        guard !sub.value.isEmpty, !sid.isEmpty else {
            throw JWTError.claimVerificationFailure(failedClaim: sub, reason: "a Latchkey token names an account and a session")
        }
    }

    /// The methods a session's ceremony used (RFC 8176 values).
    static func methods(of session: SessionDetails) -> [String] {
        var methods = [session.backupEligible == false ? "hwk" : "swk", "user"]
        if session.userVerified { methods.append("mfa") }
        return methods
    }
}
