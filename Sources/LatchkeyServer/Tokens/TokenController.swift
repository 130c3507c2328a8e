import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import NIOCore
import WebAuthn

/// Sign-in for other backends: `POST /api/token` turns the caller's session into a short-lived signed
/// access token, `/.well-known/jwks.json` publishes the keys that verify it, and `POST /api/introspect`
/// (RFC 7662) answers a backend that prefers to ask whether an access token is active (never a
/// session token: see `describe`). Each answers 404 `not_enabled` while its option is off (the routes are always there, so
/// the API document is the same for every configuration).
struct TokenController: Sendable {
    /// Signs, publishes and verifies: there with `--access-tokens` or `--oidc`.
    let issuer: AccessTokenIssuer?
    /// `POST /api/token` is on (`--access-tokens`); with only `--oidc`, the keys serve the provider alone.
    let sessionTokens: Bool
    let sessions: SessionService
    /// SHA-256 of the introspection secret (compared digest to digest, in constant time).
    let introspectionSecretDigest: [UInt8]?
    /// For the audit trail's client address (`ClientAddress`).
    let trustForwardedFor: Bool

    init(issuer: AccessTokenIssuer?, sessionTokens: Bool, sessions: SessionService, introspectionSecret: String?, trustForwardedFor: Bool) {
        self.issuer = issuer
        self.sessionTokens = sessionTokens
        self.sessions = sessions
        self.trustForwardedFor = trustForwardedFor
        self.introspectionSecretDigest = introspectionSecret.map { Array(SHA256.hash(data: Array($0.utf8))) }
    }

    struct TokenResponse: APIResponseBody {
        let access_token: String
        let token_type: String
        let expires_in: Int
    }

    /// RFC 7662 §2.2; members other than `active` only for an active token.
    struct IntrospectionResponse: APIResponseBody {
        var active: Bool
        var token_type: String?
        var sub: String?
        var iss: String?
        var aud: String?
        var exp: Int64?
        var iat: Int64?
        var auth_time: Int64?
        var amr: [String]?
        var sid: String?
        /// The OpenID Connect provider's tokens: the client and the scopes granted to it.
        var client_id: String?
        var scope: String?
    }

    /// `POST /api/token`, for the rate-limited `/api` group, behind `signedIn` (the authentication
    /// middleware, required).
    func routes<Context: LatchkeyRequestContext>(signedIn: LatchkeyAuthenticationMiddleware<Context>) -> RouteCollection<Context> {
        let routes = RouteCollection(context: Context.self).add(middleware: signedIn)
        routes.post("token") { request, context in
            try await token(context.signedInCaller(), origin: AuditOrigin(request, context: context, actor: "person", trustForwardedFor: trustForwardedFor))
        }
        return routes
    }

    /// Introspection goes on `unlimited`, the group the `/api` group is in, outside the limiter: a backend
    /// asks once per request it serves, all from one address. The secret it must present is at least 32
    /// characters, compared in constant time.
    func registerIntrospection<Context: LatchkeyRequestContext>(on unlimited: some RouterMethods<Context>) {
        unlimited.post("api/introspect") { request, context in try await introspect(request, context: context) }
    }

    /// The key set, at the domain's root where verifiers look for it.
    func registerKeySet<Context: LatchkeyRequestContext>(on root: some RouterMethods<Context>) {
        root.get(".well-known/jwks.json") { _, _ in try await jwks() }
    }

    static func notEnabled(_ what: String) -> APIError {
        APIError(.notEnabled, "\(what) are not enabled on this server (latchkey serve --help).")
    }

    /// An access token for the caller's session, audited (`access_token.issued`: when, for how long,
    /// never the token).
    func token(_ caller: RequestAuthentication.Caller, origin: AuditOrigin) async throws -> TokenResponse {
        guard let issuer, sessionTokens else { throw Self.notEnabled("Access tokens") }
        guard let session = try await sessions.details(for: caller.token) else { throw APIError.notAuthenticated }
        let (token, expiresIn) = try await issuer.issue(for: session)
        try await sessions.recordAccessTokenIssued(accountId: caller.accountId, expiresIn: expiresIn, origin: origin)
        return TokenResponse(access_token: token, token_type: "Bearer", expires_in: expiresIn)
    }

    func jwks() async throws -> APIReply<JWKSDocument> {
        guard let issuer else { throw Self.notEnabled("Access tokens") }
        // The next period's key is published a whole period ahead, so a cached copy is never missing
        // the key of a fresh token for longer than this.
        // RSA keys only once some OpenID Connect client wants RS256 id_tokens (the issuer remembers
        // whether one does). Any origin may read it: it holds public keys only, and a single-page app
        // verifies its id_tokens with them.
        return APIReply(
            headers: [.cacheControl: "public, max-age=600", .accessControlAllowOrigin: "*"], body: try await issuer.jwks())
    }

    func introspect(_ request: Request, context: some RequestContext) async throws -> Response {
        guard let introspectionSecretDigest else { throw Self.notEnabled("Token introspection requests") }
        guard let header = request.headers[.authorization], let secret = try? RequestAuthentication.bearerToken(header),
              ConstantTime.equal(Array(SHA256.hash(data: Array(secret.utf8))), introspectionSecretDigest)
        else {
            var refusal = try APIError(.invalidClient, "Present the introspection secret as Authorization: Bearer <secret>.")
                .response(from: request, context: context)
            refusal.headers[.wwwAuthenticate] = "Bearer realm=\"latchkey-introspection\""
            return refusal
        }
        let token = try await Self.formToken(request)
        return try await describe(token).response(from: request, context: context)
    }

    /// What introspection says about `token`. Only access tokens can be active. A session token is
    /// the account's full power (it deletes the account, and with a recent sign-in adds a passkey), so
    /// a backend must never be the place it travels to; such a backend gets `POST /api/token`'s access
    /// token from its client instead, which grants nothing at Latchkey (third review, finding 11). A
    /// session token is answered `active: false` like any other string.
    ///
    /// JWTKit decodes an access token's header and payload through `GatedJSONDecoder` (finding 1): a
    /// header nested too deep is refused by Latchkey's parser before Foundation sees it.
    private func describe(_ token: String) async throws -> IntrospectionResponse {
        let inactive = IntrospectionResponse(active: false)
        guard let issuer, !RequestAuthentication.isWellFormed(token), token.utf8.count <= 4096,
              let found = try await issuer.introspect(token)
        else { return inactive }
        let claims = found.claims
        return IntrospectionResponse(
            active: true, token_type: "access_token", sub: claims.sub.value, iss: claims.iss.value, aud: claims.aud?.value.first,
            exp: Self.seconds(claims.exp.value), iat: Self.seconds(claims.iat.value), auth_time: claims.authTime, amr: claims.amr,
            sid: claims.sid, client_id: claims.clientId, scope: claims.scope)
    }

    /// The `token` parameter of an `application/x-www-form-urlencoded` body (RFC 7662 §2.1), read by
    /// `OAuthParameters` like every other form, up to the whole body's 64 KiB: a token too long to be one
    /// of this server's is answered inactive, not refused.
    static func formToken(_ request: Request) async throws -> String {
        switch try await OAuthParameters.form(of: request, maxBytes: RequestBody.limit) {
        case .failure(.notAForm):
            throw APIError(.unsupportedContentType, "Send token=… as Content-Type: application/x-www-form-urlencoded (RFC 7662).")
        case .failure(.malformed(let malformed)) where malformed.badlyEncoded == "token":
            throw APIError(.malformedTokenParameter, "The token parameter is not properly percent-encoded.")
        case .failure(.malformed(let malformed)):
            throw APIError(.malformedTokenParameter, "The form \(malformed.reason).")
        case .success(let parameters):
            guard let token = parameters["token"] else {
                throw APIError(.missingToken, "Send the token to look up as the form parameter token.")
            }
            return token
        }
    }

    static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }
}
