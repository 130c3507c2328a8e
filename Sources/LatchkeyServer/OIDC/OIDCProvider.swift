import Foundation
import LatchkeyAPI
import WebAuthn

/// Latchkey as an OpenID Connect provider: the decisions of the authorization endpoint (Core §3.1.2) —
/// whether the person must sign in (again), whether they must consent, or whether the client gets its
/// code — and the code's issue. The token endpoint is `OIDCTokenEndpoint`; the HTTP side, the page's
/// JSON API and the documents are `OIDCController`.
///
/// The browser's Latchkey session is the sign-in: its cookie is `SameSite=Strict`, so it does not come
/// along on the client's cross-site redirect to `/authorize`. That request therefore only serves the
/// page; the page asks `POST /api/oidc/authorization` from Latchkey's own origin, where the cookie does
/// come, and this type decides.
struct OIDCProvider: Sendable {
    struct Settings: Sendable {
        let issuer: String
        /// An authorization code lives a minute (RFC 6749 §4.1.2 recommends at most ten).
        var codeLifetime: TimeInterval = 60
        let accessTokenLifetime: TimeInterval
        let refreshLifetime: TimeInterval
    }

    /// What the person sees next.
    enum Outcome: Sendable {
        /// Navigate here: the client's redirect URI with the code, or with an error.
        case redirect(String)
        case interaction(Interaction)
    }

    struct Interaction: Sendable {
        enum Kind: String, Sendable { case login, consent }
        let kind: Kind
        /// The stamp to show after signing in (`OIDCInteractionStamp`).
        let after: String
        let client: OIDCClientRecord
        let scopes: [String]
        let loginHint: String?
    }

    let store: Store
    let tokens: AccessTokenIssuer
    /// Whether some client wants RS256 and the clients' web origins, read at most every 30 s;
    /// `AdminService` makes it forget when it changes a client.
    let clientFacts: OIDCClientFacts
    let stamps: OIDCInteractionStamp
    let settings: Settings
    let now: @Sendable () -> Date
    /// The keys `private_key_jwt` clients publish (`jwks_uri`), fetched under the webhooks' address rules.
    var keySets = OIDCClientKeySets(allowPrivate: false)

    /// Reads an authorization request's parameters (`query`: the text after `?`).
    func request(query: Substring) async throws -> OIDCAuthorizationRequest {
        let parameters: OAuthParameters
        do {
            parameters = try OAuthParameters(parsing: query)
        } catch {
            throw OIDCAuthorizationRequest.Problem.page(APIError(.oidcMalformedRequest, "The sign-in request \(error.reason); go back to the app and start again."))
        }
        var client: OIDCClientRecord?
        if let id = parameters["client_id"], id.utf8.count <= 128 { client = try await store.oidcClients.client(id: id) }
        return try OIDCAuthorizationRequest.read(parameters, client: client)
    }

    /// The decision for `request` made by `session` (nil: not signed in). `after` is the stamp a login
    /// interaction gave; `consent` is the person's answer on the consent screen (nil when not asked).
    func authorize(
        _ request: OIDCAuthorizationRequest, session: SessionDetails?, after: String?, consent: Bool?, origin: AuditOrigin
    ) async throws -> Outcome {
        let date = now()
        let fresh: Bool = {
            guard let session, let after, let began = stamps.time(of: after, now: date) else { return false }
            return session.createdAt >= began
        }()
        func interaction(_ kind: Interaction.Kind) -> Outcome {
            .interaction(Interaction(
                kind: kind, after: kind == .login ? stamps.make(at: date) : (after ?? stamps.make(at: date)), client: request.client,
                scopes: request.scopes, loginHint: request.loginHint))
        }
        func refuse(_ code: OAuthError.Code, _ description: String) -> Outcome {
            .redirect(OIDCAuthorizationRequest.redirect(
                to: request.redirectURI, [("error", code.rawValue), ("error_description", description)], state: request.state,
                issuer: settings.issuer))
        }
        let silent = request.prompts.contains("none")
        guard let session, session.method == .passkey else {
            return silent ? refuse(.loginRequired, "the person is not signed in") : interaction(.login)
        }
        if request.prompts.contains("login"), !fresh { return interaction(.login) }
        if let maxAge = request.maxAge, date.timeIntervalSince(session.createdAt) > Double(maxAge), !fresh {
            return silent ? refuse(.loginRequired, "the last sign-in is older than max_age") : interaction(.login)
        }
        guard let profile = try await store.accountProfile(id: session.accountId), !profile.disabled else {
            return silent ? refuse(.loginRequired, "the person is not signed in") : interaction(.login)
        }
        let client = request.client
        if !client.allowedGroups.isEmpty, Set(client.allowedGroups).isDisjoint(with: profile.groups) {
            throw APIError(.oidcGroupNotAllowed, "Your account may not sign in to \(client.name): ask the service's operator to add you to one of its groups.")
        }
        if consent == false { return refuse(.accessDenied, "the person declined") }
        var consentGiven: [String]?
        if consent == true {
            consentGiven = Array(Set(try await store.oidcGrants.consent(accountId: session.accountId, clientId: client.id) ?? []).union(request.scopes)).sorted()
        } else if !client.firstParty {
            let known = try await store.oidcGrants.consent(accountId: session.accountId, clientId: client.id)
            let covered = known.map { Set(request.scopes).isSubset(of: Set($0)) } ?? false
            if !covered || request.prompts.contains("consent") {
                return silent ? refuse(.consentRequired, "the person has not allowed this app yet") : interaction(.consent)
            }
        }
        let code = Base64URL.encode(RandomBytes.make(32))
        let grant = OIDCGrantRecord(
            id: Base64URL.encode(RandomBytes.make(16)), clientId: client.id, accountId: session.accountId, sessionHash: session.tokenHash,
            scopes: request.scopes, nonce: request.nonce, authTime: session.createdAt, amr: AccessTokenClaims.methods(of: session),
            createdAt: date, expiresAt: date.addingTimeInterval(settings.codeLifetime))
        let detail: AuditDetail = ["client": .text(client.id), "clientName": .text(client.name), "scope": .text(request.scopes.joined(separator: " "))]
        var events = [origin.event(.oidcAuthorized, at: date, account: session.accountId, detail: detail)]
        if let consentGiven {
            events.insert(origin.event(.oidcConsentGiven, at: date, account: session.accountId, detail: [
                "client": .text(client.id), "clientName": .text(client.name), "scope": .text(consentGiven.joined(separator: " ")),
            ]), at: 0)
        }
        try await store.oidcGrants.issueCode(
            grant: grant, code: OIDCCodeRecord(
                codeHash: SecretDigest.of(code), grantId: grant.id, redirectURI: request.redirectURI, codeChallenge: request.codeChallenge,
                expiresAt: grant.expiresAt),
            consent: consentGiven, events: events)
        return .redirect(OIDCAuthorizationRequest.redirect(to: request.redirectURI, [("code", code)], state: request.state, issuer: settings.issuer))
    }

    // MARK: What the controller's routes change (it reads the store; writes come here)

    /// A token revoked by the client it was issued to (RFC 7009): its grant and every token of it end.
    func revoke(_ grant: OIDCGrantRecord, by client: OIDCClientRecord, origin: AuditOrigin) async throws {
        let date = now()
        try await store.oidcGrants.revoke(grant, at: date, events: [
            origin.event(.oidcGrantRevoked, at: date, account: grant.accountId, detail: OIDCTokenEndpoint.detail(client)),
        ])
    }

    /// A client revoked one of its client-credentials tokens (RFC 7009): all of them end (a new
    /// generation), audited without an account.
    func revokeClientCredentials(of client: OIDCClientRecord, origin: AuditOrigin) async throws {
        let date = now()
        var detail = OIDCTokenEndpoint.detail(client)
        detail.members.append(("grantType", .text(OIDCGrantType.clientCredentials)))
        try await store.oidcClients.revokeCredentials(client, event: origin.event(.oidcGrantRevoked, at: date, account: nil, detail: detail))
    }

    /// RP-initiated logout: the person's session ends (and with it the grants it gave), audited with the
    /// client that asked, when one did.
    func endSession(token: String, accountId: String, client: OIDCClientRecord?, origin: AuditOrigin) async throws {
        let date = now()
        let detail: AuditDetail = client.map(OIDCTokenEndpoint.detail) ?? [:]
        try await store.oidcGrants.endSessionForLogout(
            sessionHash: SessionToken.hash(of: token), at: date, events: [origin.event(.oidcLogout, at: date, account: accountId, detail: detail)])
    }
}
