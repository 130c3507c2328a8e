import Foundation
import LatchkeyAPI

/// An authorization request (OpenID Connect Core §3.1.2.1) once checked: the client, the redirect URI it
/// registered, and what it asks for. Reading one has two kinds of failure (`Problem`): before the client
/// and redirect URI are known good nothing may be sent to the redirect URI (Core §3.1.2.6, RFC 6749
/// §4.1.2.1 — it would make Latchkey an open redirector), so those are shown on Latchkey's own error page;
/// after, errors go back to the client at its redirect URI.
struct OIDCAuthorizationRequest: Sendable {
    let client: OIDCClientRecord
    let redirectURI: String
    let state: String?
    let nonce: String?
    /// What will be granted: the requested scopes the client may have, `openid` first.
    let scopes: [String]
    /// The S256 PKCE challenge (RFC 7636), required of public clients.
    let codeChallenge: String?
    /// `none`, `login`, `consent`, `select_account` (Core §3.1.2.1).
    let prompts: Set<String>
    let maxAge: Int?
    let loginHint: String?

    enum Problem: Error, Sendable {
        /// Shown on Latchkey's page, never sent anywhere.
        case page(APIError)
        /// Sent back to the client's (checked) redirect URI.
        case redirect(OAuthError, redirectURI: String, state: String?)
    }

    static let maxStateLength = 2048
    static let maxNonceLength = 512

    /// Reads `parameters` for `client` (nil when `client_id` names none).
    static func read(_ parameters: OAuthParameters, client: OIDCClientRecord?) throws(Problem) -> OIDCAuthorizationRequest {
        guard let clientId = parameters["client_id"] else {
            throw .page(APIError(.oidcInvalidClient, "The sign-in request names no client (client_id): go back to the app and start again."))
        }
        guard let client, client.id == clientId else {
            throw .page(APIError(.oidcInvalidClient, "The app asking you to sign in (client_id \(Self.shown(clientId))) is not registered on this server."))
        }
        // Core §3.1.2.1: redirect_uri is REQUIRED, and must match a registered one exactly.
        guard let redirectURI = parameters["redirect_uri"] else {
            throw .page(APIError(.oidcInvalidRedirectURI, "The sign-in request of \(client.name) has no redirect_uri; it cannot be answered."))
        }
        guard OIDCRedirectMatch.isRegistered(redirectURI, for: client) else {
            throw .page(APIError(
                .oidcInvalidRedirectURI, "The sign-in request of \(client.name) asks to return to an address it did not register; it was not followed."))
        }
        let state = parameters["state"]
        func refuse(_ code: OAuthError.Code, _ description: String) -> Problem {
            .redirect(OAuthError(code, description), redirectURI: redirectURI, state: state)
        }
        if let state, state.count > maxStateLength { throw refuse(.invalidRequest, "state is longer than \(maxStateLength) characters") }
        guard client.allows(OIDCGrantType.authorizationCode) else {
            throw refuse(.unauthorizedClient, "this client may not sign people in with codes (authorization_code)")
        }
        if parameters["request"] != nil { throw refuse(.requestNotSupported, "request objects are not supported") }
        if parameters["request_uri"] != nil { throw refuse(.requestURINotSupported, "request_uri is not supported") }
        if parameters["registration"] != nil { throw refuse(.registrationNotSupported, "registration is not supported") }
        guard let responseType = parameters["response_type"] else { throw refuse(.invalidRequest, "response_type is missing") }
        guard responseType == "code" else { throw refuse(.unsupportedResponseType, "only response_type=code is supported") }
        if let mode = parameters["response_mode"], mode != "query" { throw refuse(.invalidRequest, "only response_mode=query is supported") }
        var requested = Set((parameters["scope"] ?? "").split(separator: " ").map(String.init))
        guard requested.contains(OIDCScope.openid) else { throw refuse(.invalidScope, "scope must include openid") }
        // Core §5.5: claims asked for by name call for the scopes that release them.
        if let claims = parameters["claims"] {
            do {
                requested.formUnion(try OIDCClaimsParameter.scopes(claims))
            } catch {
                throw refuse(.invalidRequest, error.reason)
            }
        }
        // Scopes the client may not have, or this server does not know, are left out (RFC 6749 §3.3).
        let scopes = OIDCScope.supported.filter { requested.contains($0) && client.scopes.contains($0) }
        guard scopes.contains(OIDCScope.openid) else { throw refuse(.invalidScope, "this client may not ask for openid") }
        let nonce = parameters["nonce"]
        if let nonce, nonce.count > maxNonceLength { throw refuse(.invalidRequest, "nonce is longer than \(maxNonceLength) characters") }
        let challenge = parameters["code_challenge"]
        if let method = parameters["code_challenge_method"] {
            guard method == "S256" else { throw refuse(.invalidRequest, "code_challenge_method must be S256 (plain is not accepted)") }
            guard challenge != nil else { throw refuse(.invalidRequest, "code_challenge_method without code_challenge") }
        }
        if let challenge {
            guard parameters["code_challenge_method"] == "S256" else {
                throw refuse(.invalidRequest, "code_challenge_method must be S256 (plain is not accepted)")
            }
            // RFC 7636 §4.2: BASE64URL(SHA256(verifier)) is 43 characters.
            guard challenge.count == 43, Base64URLAlphabet.contains(challenge) else {
                throw refuse(.invalidRequest, "code_challenge is not an S256 challenge (43 base64url characters)")
            }
        } else if client.isPublic {
            throw refuse(.invalidRequest, "a public client must use PKCE: code_challenge and code_challenge_method=S256")
        }
        let prompts = Set((parameters["prompt"] ?? "").split(separator: " ").map(String.init))
        guard prompts.isSubset(of: ["none", "login", "consent", "select_account"]) else {
            throw refuse(.invalidRequest, "prompt may only hold none, login, consent and select_account")
        }
        if prompts.contains("none"), prompts.count > 1 { throw refuse(.invalidRequest, "prompt=none cannot be combined with another value") }
        var maxAge: Int?
        if let text = parameters["max_age"] {
            guard let value = Int(text), value >= 0, text.count <= 10 else { throw refuse(.invalidRequest, "max_age must be a number of seconds") }
            maxAge = value
        }
        let hint = parameters["login_hint"].map { String($0.prefix(256)) }
        return OIDCAuthorizationRequest(
            client: client, redirectURI: redirectURI, state: state, nonce: nonce, scopes: scopes, codeChallenge: challenge,
            prompts: prompts, maxAge: maxAge, loginHint: hint)
    }

    /// The redirect that answers the request: `pairs`, then `state` and `iss` (RFC 9207).
    static func redirect(to redirectURI: String, _ pairs: [(String, String)], state: String?, issuer: String) -> String {
        var all = pairs
        if let state { all.append(("state", state)) }
        all.append(("iss", issuer))
        let separator = redirectURI.contains("?") ? "&" : "?"
        return redirectURI + separator + OAuthParameters.encode(all)
    }

    /// A caller's text in a sentence: short, and only letters, digits and `-._~:`, judged per Unicode
    /// scalar. `Character.isLetter` looks at a cluster's first scalar only, so a Prepend letter let the
    /// `<` of its cluster through (review 4, S4-1).
    static func shown(_ text: String) -> String {
        var shown = String.UnicodeScalarView()
        for scalar in text.unicodeScalars.prefix(64) {
            switch scalar.properties.generalCategory {
            case .uppercaseLetter, .lowercaseLetter, .titlecaseLetter, .modifierLetter, .otherLetter, .decimalNumber:
                shown.append(scalar)
            default:
                if "-._~:".unicodeScalars.contains(scalar) { shown.append(scalar) }
            }
        }
        return String(shown)
    }
}

/// The 64 characters of base64url.
enum Base64URLAlphabet {
    static func contains(_ text: String) -> Bool {
        text.utf8.allSatisfy { byte in
            (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x5F
        }
    }
}
