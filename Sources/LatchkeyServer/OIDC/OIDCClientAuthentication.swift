import Foundation
import WebAuthn

/// Who is calling the token and revocation endpoints (RFC 6749 §2.3): a confidential client by its secret
/// — in `Authorization: Basic` (`client_secret_basic`, id and secret form-encoded first, §2.3.1) or in the
/// body (`client_secret_post`), never both — by a JWT signed with one of its registered keys
/// (`private_key_jwt`, `OIDCClientAssertion`), or a public client by its `client_id` alone (`none`: it
/// proves itself with PKCE instead). The secret is compared as its SHA-256, in constant time. A client
/// with keys and no secret must sign: its id alone is nothing.
enum OIDCClientAuthentication {
    static func client(
        authorization: String?, parameters: OAuthParameters, provider: OIDCProvider
    ) async throws -> Result<OIDCClientRecord, OAuthError> {
        let store = provider.store
        if parameters["client_assertion_type"] != nil || parameters["client_assertion"] != nil {
            guard authorization == nil, parameters["client_secret"] == nil else {
                return .failure(OAuthError(.invalidRequest, "Authenticate the client one way only: a client_assertion, Basic or client_secret."))
            }
            guard parameters["client_assertion_type"] == OIDCClientAssertion.type else {
                return .failure(.invalidClient("client_assertion_type must be \(OIDCClientAssertion.type).", basic: false))
            }
            guard let assertion = parameters["client_assertion"] else {
                return .failure(OAuthError(.invalidRequest, "client_assertion is missing."))
            }
            return try await OIDCClientAssertion.authenticate(assertion, clientId: parameters["client_id"], provider: provider)
        }
        var id: String?
        var secret: String?
        let basic = authorization != nil
        if let authorization {
            guard authorization.utf8.count <= 1024, authorization.lowercased().hasPrefix("basic "),
                  let decoded = Base64Standard.decode(String(authorization.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
                  let text = String(validating: decoded, as: UTF8.self),
                  let colon = text.firstIndex(of: ":"),
                  let user = unescape(text[..<colon]), let password = unescape(text[text.index(after: colon)...])
            else { return .failure(.invalidClient("Authorization must be Basic with the client id and secret.", basic: true)) }
            if parameters["client_secret"] != nil {
                return .failure(OAuthError(.invalidRequest, "Authenticate the client one way only: Basic or client_secret, not both."))
            }
            if let bodyId = parameters["client_id"], bodyId != user {
                return .failure(OAuthError(.invalidRequest, "client_id differs from the one in Authorization."))
            }
            id = user
            secret = password
        } else {
            id = parameters["client_id"]
            secret = parameters["client_secret"]
        }
        guard let id, !id.isEmpty, id.utf8.count <= 128, let client = try await store.oidcClients.client(id: id) else {
            return .failure(.invalidClient("No such client.", basic: basic))
        }
        switch (client.secretHash, secret) {
        case (nil, nil) where !client.isPublic:  // registered or published keys: it must sign
            return .failure(.invalidClient("This client authenticates with a signed client_assertion (private_key_jwt).", basic: basic))
        case (nil, nil):
            return .success(client)
        case (let digest?, let secret?) where ConstantTime.equal(SecretDigest.of(secret), digest):
            return .success(client)
        case (nil, _?):
            return .failure(.invalidClient("This client has no secret to present (it is public, or signs a client_assertion).", basic: basic))
        default:
            return .failure(.invalidClient("The client secret is missing or wrong.", basic: basic))
        }
    }

    /// RFC 6749 §2.3.1: the id and secret are form-encoded before they are joined.
    private static func unescape(_ text: Substring) -> String? {
        String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}

/// Standard base64 (RFC 4648 §4), padded or not, for `Authorization: Basic`.
enum Base64Standard {
    static func decode(_ text: String) -> [UInt8]? {
        var padded = text
        while padded.count % 4 != 0 { padded += "=" }
        return Data(base64Encoded: padded).map { Array($0) }
    }
}
