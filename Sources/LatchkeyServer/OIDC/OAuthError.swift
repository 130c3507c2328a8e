import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyAPI
import NIOCore

/// The OAuth 2.0 / OpenID Connect protocol's own errors. The protocol fixes their shape — `{"error":
/// "invalid_grant", "error_description": "…"}` at the token, revocation and UserInfo endpoints (RFC 6749
/// §5.2, RFC 6750 §3), `error` and `error_description` query parameters on a redirect (RFC 6749 §4.1.2.1,
/// Core §3.1.2.6) — so relying parties' libraries can read them; Latchkey's own routes answer with
/// `APIError`'s catalogue instead. The codes are the RFCs' and Core's, listed here once.
struct OAuthError: Error, Sendable, Equatable {
    enum Code: String, Sendable {
        case invalidRequest = "invalid_request"
        case invalidClient = "invalid_client"
        case invalidGrant = "invalid_grant"
        case unauthorizedClient = "unauthorized_client"
        case unsupportedGrantType = "unsupported_grant_type"
        case unsupportedResponseType = "unsupported_response_type"
        case unsupportedTokenType = "unsupported_token_type"
        case invalidScope = "invalid_scope"
        case accessDenied = "access_denied"
        case serverError = "server_error"
        case invalidToken = "invalid_token"
        case loginRequired = "login_required"
        case consentRequired = "consent_required"
        case interactionRequired = "interaction_required"
        case requestNotSupported = "request_not_supported"
        case requestURINotSupported = "request_uri_not_supported"
        case registrationNotSupported = "registration_not_supported"
        // The device flow's (RFC 8628 §3.5).
        case authorizationPending = "authorization_pending"
        case slowDown = "slow_down"
        case expiredToken = "expired_token"
    }

    let code: Code
    let description: String
    /// 401 with `WWW-Authenticate` for a client that failed to authenticate (RFC 6749 §5.2) or a bad
    /// bearer token (RFC 6750 §3.1); 400 otherwise.
    var status: HTTPResponse.Status = .badRequest
    var wwwAuthenticate: String? = nil

    init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    static func invalidClient(_ description: String, basic: Bool) -> OAuthError {
        var error = OAuthError(.invalidClient, description)
        error.status = .unauthorized
        error.wwwAuthenticate = basic ? "Basic realm=\"latchkey\"" : nil
        return error
    }

    /// RFC 6750 §3: a missing token gets the bare challenge, a bad one says `invalid_token`.
    static func invalidToken(_ description: String, missing: Bool = false) -> OAuthError {
        var error = OAuthError(.invalidToken, description)
        error.status = .unauthorized
        error.wwwAuthenticate = missing ? "Bearer realm=\"latchkey\"" : "Bearer realm=\"latchkey\", error=\"invalid_token\""
        return error
    }

    /// The JSON response (no caching: RFC 6749 §5.1).
    var response: Response {
        var json = JSONWriter()
        json.object { object in
            object.member("error", code.rawValue)
            object.member("error_description", description)
        }
        var headers: HTTPFields = [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"]
        if let wwwAuthenticate { headers[.wwwAuthenticate] = wwwAuthenticate }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: json.bytes)))
    }
}
