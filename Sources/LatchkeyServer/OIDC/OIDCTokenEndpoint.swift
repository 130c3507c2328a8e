import Crypto
import Foundation
import LatchkeyAPI
import WebAuthn

/// The token endpoint (RFC 6749 §3.2, Core §3.1.3): an authorization code, or a refresh token, for an
/// access token and an id_token. A code is used once: a second use is refused and revokes everything its
/// first use gave (§4.1.2). A refresh token is rotated on every use, and a used one presented again ends
/// the whole grant (RFC 9700 §4.14.2): whoever holds the newer token loses it too, which is the point —
/// one of the two holders is a thief, and the server cannot tell which.
struct OIDCTokenEndpoint: Sendable {
    let provider: OIDCProvider

    var store: Store { provider.store }
    var now: @Sendable () -> Date { provider.now }

    /// What a successful request answers (RFC 6749 §5.1, Core §3.1.3.3).
    struct Tokens: Sendable, Equatable {
        let accessToken: String
        let expiresIn: Int
        /// Nil for a client-credentials token: no person, no id_token (RFC 6749 §4.4.3).
        let idToken: String?
        let refreshToken: String?
        let scope: String

        var json: [UInt8] {
            var json = JSONWriter()
            json.object { object in
                object.member("access_token", accessToken)
                object.member("token_type", "Bearer")
                object.member("expires_in", expiresIn)
                if let idToken { object.member("id_token", idToken) }
                if let refreshToken { object.member("refresh_token", refreshToken) }
                object.member("scope", scope)
            }
            return json.bytes
        }
    }

    func exchange(_ parameters: OAuthParameters, authorization: String?, origin: AuditOrigin) async throws -> Result<Tokens, OAuthError> {
        let client: OIDCClientRecord
        switch try await OIDCClientAuthentication.client(authorization: authorization, parameters: parameters, provider: provider) {
        case .success(let found): client = found
        case .failure(let error): return .failure(error)
        }
        switch parameters["grant_type"] {
        case OIDCGrantType.authorizationCode?:
            guard client.allows(OIDCGrantType.authorizationCode) else { return .failure(Self.notAllowed(OIDCGrantType.authorizationCode)) }
            return try await redeem(parameters, client: client, origin: origin)
        case OIDCGrantType.refreshToken?: return try await refresh(parameters, client: client, origin: origin)
        case OIDCGrantType.clientCredentials?: return try await credentials(parameters, client: client, origin: origin)
        case OIDCGrantType.deviceCode?:
            guard client.allows(OIDCGrantType.deviceCode) else { return .failure(Self.notAllowed("device_code")) }
            return try await device(parameters, client: client, origin: origin)
        case nil: return .failure(OAuthError(.invalidRequest, "grant_type is missing."))
        default:
            return .failure(OAuthError(.unsupportedGrantType, "Only \(OIDCGrantType.supported.joined(separator: ", ")) are supported."))
        }
    }

    /// RFC 6749 §5.2: a grant type this client was not allowed.
    static func notAllowed(_ grantType: String) -> OAuthError {
        OAuthError(.unauthorizedClient, "This client may not use \(grantType); an operator allows it (latchkey admin clients update … --grant).")
    }

    /// The client-credentials grant (RFC 6749 §4.4): a confidential client an operator allowed it,
    /// authenticated above, gets an access token for itself — `sub` is the client — carrying the API
    /// scopes it asks for among those the operator defined (all of them when it asks for none, §3.3).
    /// No id_token and no refresh token (§4.4.3): it can ask again. Audited without an account.
    private func credentials(_ parameters: OAuthParameters, client: OIDCClientRecord, origin: AuditOrigin) async throws -> Result<Tokens, OAuthError> {
        guard !client.isPublic else {
            return .failure(OAuthError(.unauthorizedClient, "A public client cannot use client_credentials: it has nothing to prove itself with."))
        }
        guard client.allows(OIDCGrantType.clientCredentials), !client.credentialsGeneration.isEmpty else {
            return .failure(Self.notAllowed(OIDCGrantType.clientCredentials))
        }
        var scopes = client.apiScopes
        if let asked = parameters["scope"] {
            let names = Set(asked.split(separator: " ").map(String.init))
            guard names.isSubset(of: Set(client.apiScopes)) else {
                return .failure(OAuthError(.invalidScope, "This client may ask only for its API scopes: \(client.apiScopes.joined(separator: " "))."))
            }
            scopes = client.apiScopes.filter(names.contains)
        }
        let (accessToken, expiresIn) = try await provider.tokens.issue(forClient: client, scopes: scopes)
        let date = now()
        var detail = Self.detail(client)
        detail.members.append(("scope", .text(scopes.joined(separator: " "))))
        try await store.oidcClients.recordCredentialsIssued(event: origin.event(.oidcClientCredentialsIssued, at: date, account: nil, detail: detail))
        return .success(Tokens(accessToken: accessToken, expiresIn: expiresIn, idToken: nil, refreshToken: nil, scope: scopes.joined(separator: " ")))
    }

    private func redeem(_ parameters: OAuthParameters, client: OIDCClientRecord, origin: AuditOrigin) async throws -> Result<Tokens, OAuthError> {
        guard let code = parameters["code"], code.utf8.count <= 128 else { return .failure(OAuthError(.invalidRequest, "code is missing.")) }
        guard let redirectURI = parameters["redirect_uri"] else { return .failure(OAuthError(.invalidRequest, "redirect_uri is missing.")) }
        let verifier = parameters["code_verifier"]
        if let verifier, !(43...128).contains(verifier.count) || !Self.isVerifierText(verifier) {
            return .failure(OAuthError(.invalidRequest, "code_verifier must be 43 to 128 unreserved characters (RFC 7636 §4.1)."))
        }
        let date = now()
        let refresh = Base64URL.encode(RandomBytes.make(32))
        let clientId = client.id
        let settings = provider.settings
        let outcome = try await store.oidcGrants.redeemCode(
            codeHash: SecretDigest.of(code), at: date,
            accepts: { code, grant in
                guard grant.clientId == clientId, code.redirectURI == redirectURI else { return false }
                // RFC 7636 §4.6, and RFC 9700 §2.1.1: a verifier without a challenge is refused too.
                switch (code.codeChallenge, verifier) {
                case (nil, nil): return true
                case (let challenge?, let verifier?):
                    let computed = Base64URL.encode(Array(SHA256.hash(data: Array(verifier.utf8))))
                    return ConstantTime.equal(Array(challenge.utf8), Array(computed.utf8))
                default: return false
                }
            },
            refreshHash: SecretDigest.of(refresh),
            expiry: { grant in
                date.addingTimeInterval(grant.isOffline ? settings.refreshLifetime : settings.accessTokenLifetime)
            },
            events: { grant, reused in
                [origin.event(reused ? .oidcCodeReused : .oidcCodeExchanged, at: date, account: grant.accountId, detail: Self.detail(client))]
            })
        switch outcome {
        case .refused:
            return .failure(OAuthError(.invalidGrant, "The code is unknown, expired, or was issued for another client, redirect URI or code_verifier."))
        case .reused:
            return .failure(OAuthError(.invalidGrant, "The code was used before; everything issued with it is revoked."))
        case .redeemed(let grant):
            return .success(try await tokens(for: grant, client: client, refresh: grant.isOffline ? refresh : nil, withNonce: true))
        }
    }

    private func refresh(_ parameters: OAuthParameters, client: OIDCClientRecord, origin: AuditOrigin) async throws -> Result<Tokens, OAuthError> {
        guard let token = parameters["refresh_token"], token.utf8.count <= 128 else {
            return .failure(OAuthError(.invalidRequest, "refresh_token is missing."))
        }
        let date = now()
        let next = Base64URL.encode(RandomBytes.make(32))
        // RFC 6749 §6: a narrower scope may be asked for, never a wider one; checked before the token is
        // rotated, so a refused request leaves the token as it was.
        let asking = parameters["scope"].map { Set($0.split(separator: " ").map(String.init)) }
        let outcome = try await store.oidcGrants.rotateRefreshToken(
            hash: SecretDigest.of(token), newHash: SecretDigest.of(next), clientId: client.id, asking: asking, at: date,
            expiresAt: date.addingTimeInterval(provider.settings.refreshLifetime),
            events: { grant, reused in
                [origin.event(reused ? .oidcRefreshReused : .oidcRefreshRotated, at: date, account: grant.accountId, detail: Self.detail(client))]
            })
        switch outcome {
        case .refused:
            return .failure(OAuthError(.invalidGrant, "The refresh token is unknown, expired, revoked, or was issued to another client."))
        case .reused:
            return .failure(OAuthError(.invalidGrant, "The refresh token was used before; the whole grant is revoked."))
        case .scopeRefused:
            return .failure(OAuthError(.invalidScope, "A refresh cannot widen the scope the person granted; the refresh token is unchanged."))
        case .rotated(let grant):
            // The tokens carry the narrower scope asked for; the grant, and so the new refresh token, keeps
            // the whole one (RFC 6749 §6: the refresh token's scope stays that of the one it replaces).
            let issued = asking.map { asked in grant.narrowed(to: asked) } ?? grant
            return .success(try await tokens(for: issued, client: client, refresh: next, withNonce: false))
        }
    }

    /// A poll for a device authorization (RFC 8628 §3.4–3.5): pending, too soon (`slow_down`, the interval
    /// widened), expired, refused by the person, or — once — the tokens. A poll of another client's device
    /// code changes nothing.
    private func device(_ parameters: OAuthParameters, client: OIDCClientRecord, origin: AuditOrigin) async throws -> Result<Tokens, OAuthError> {
        guard let code = parameters["device_code"], code.utf8.count <= 128 else { return .failure(OAuthError(.invalidRequest, "device_code is missing.")) }
        let date = now()
        let refresh = Base64URL.encode(RandomBytes.make(32))
        let settings = provider.settings
        var detail = Self.detail(client)
        detail.members.append(("grantType", .text(OIDCGrantType.deviceCode)))
        let outcome = try await store.oidcDeviceCodes.poll(
            deviceHash: SecretDigest.of(code), clientId: client.id, at: date, refreshHash: SecretDigest.of(refresh),
            expiry: { grant in date.addingTimeInterval(grant.isOffline ? settings.refreshLifetime : settings.accessTokenLifetime) },
            events: { [detail] grant in [origin.event(.oidcCodeExchanged, at: date, account: grant.accountId, detail: detail)] })
        switch outcome {
        case .unknown: return .failure(OAuthError(.invalidGrant, "The device code is unknown, used, or was issued to another client."))
        case .expired: return .failure(OAuthError(.expiredToken, "The device code has expired; start again."))
        case .slowDown(let interval): return .failure(OAuthError(.slowDown, "Poll at most every \(interval) seconds."))
        case .pending: return .failure(OAuthError(.authorizationPending, "The person has not answered yet."))
        case .denied: return .failure(OAuthError(.accessDenied, "The person did not allow this device."))
        case .issued(let grant):
            return .success(try await tokens(for: grant, client: client, refresh: grant.isOffline ? refresh : nil, withNonce: false))
        }
    }

    /// An access token and an id_token for `grant` (Core §12.2: after a refresh, the same `auth_time`,
    /// and no `nonce`).
    private func tokens(for grant: OIDCGrantRecord, client: OIDCClientRecord, refresh: String?, withNonce: Bool) async throws -> Tokens {
        let (accessToken, expiresIn) = try await provider.tokens.issue(for: grant)
        let issued = Date(timeIntervalSince1970: now().timeIntervalSince1970.rounded(.down))
        var claims = IDTokenClaims(
            iss: .init(value: provider.settings.issuer), sub: .init(value: grant.accountId), aud: .init(value: [client.id]),
            exp: .init(value: issued.addingTimeInterval(provider.settings.accessTokenLifetime)), iat: .init(value: issued),
            authTime: Int64(grant.authTime.timeIntervalSince1970.rounded(.down)), nonce: withNonce ? grant.nonce : nil, amr: grant.amr,
            azp: client.id, atHash: IDTokenClaims.hash(ofAccessToken: accessToken))
        claims.sid = grant.sessionHash.map(OIDCSessionID.of(sessionHash:))
        if let released = try await OIDCUserClaims.load(accountId: grant.accountId, scopes: grant.scopes, client: client, store: store) {
            released.apply(to: &claims)
        }
        let idToken = try await provider.tokens.sign(claims, algorithm: client.idTokenAlgorithm)
        return Tokens(accessToken: accessToken, expiresIn: expiresIn, idToken: idToken, refreshToken: refresh, scope: grant.scopes.joined(separator: " "))
    }

    static func detail(_ client: OIDCClientRecord) -> AuditDetail {
        ["client": .text(client.id), "clientName": .text(client.name)]
    }

    /// RFC 7636 §4.1: `[A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~"`.
    static func isVerifierText(_ text: String) -> Bool {
        text.utf8.allSatisfy { byte in
            Base64URLAlphabet.contains(String(UnicodeScalar(byte))) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "~")
        }
    }
}
