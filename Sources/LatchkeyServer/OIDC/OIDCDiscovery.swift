import LatchkeyAPI

/// `/.well-known/openid-configuration` (OpenID Connect Discovery 1.0 §3): every endpoint under the issuer,
/// and exactly what this provider supports — relying parties configure themselves from it, so a value
/// listed here that the provider refused would break them.
enum OIDCDiscovery {
    static func document(issuer: String) -> [UInt8] {
        var json = JSONWriter()
        func strings(_ values: [String]) -> (inout JSONWriter) -> Void { { writer in writer.array(values) { $0.string($1) } } }
        json.object { object in
            object.member("issuer", issuer)
            object.member("authorization_endpoint", issuer + "/authorize")
            object.member("token_endpoint", issuer + "/oidc/token")
            object.member("userinfo_endpoint", issuer + "/oidc/userinfo")
            object.member("jwks_uri", issuer + "/.well-known/jwks.json")
            object.member("revocation_endpoint", issuer + "/oidc/revoke")
            object.member("introspection_endpoint", issuer + "/api/introspect")
            object.member("end_session_endpoint", issuer + "/end-session")
            object.member("device_authorization_endpoint", issuer + "/oidc/device")
            object.member("scopes_supported", strings(OIDCScope.supported))
            object.member("response_types_supported", strings(["code"]))
            object.member("response_modes_supported", strings(["query"]))
            object.member("grant_types_supported", strings(OIDCGrantType.supported))
            object.member("subject_types_supported", strings(["public"]))
            object.member("id_token_signing_alg_values_supported", strings(["ES256", "RS256"]))
            let methods = ["client_secret_basic", "client_secret_post", "private_key_jwt", "none"]
            object.member("token_endpoint_auth_methods_supported", strings(methods))
            object.member("token_endpoint_auth_signing_alg_values_supported", strings(OIDCClientAssertion.algorithms))
            object.member("revocation_endpoint_auth_methods_supported", strings(methods))
            object.member("revocation_endpoint_auth_signing_alg_values_supported", strings(OIDCClientAssertion.algorithms))
            object.member("code_challenge_methods_supported", strings(["S256"]))
            object.member("prompt_values_supported", strings(["none", "login", "consent", "select_account"]))
            object.member("claims_supported", strings(OIDCScope.claims + ["sid"]))
            object.member("claims_parameter_supported", true)
            object.member("request_parameter_supported", false)
            object.member("request_uri_parameter_supported", false)
            object.member("authorization_response_iss_parameter_supported", true)
            object.member("frontchannel_logout_supported", false)
            object.member("backchannel_logout_supported", true)
            object.member("backchannel_logout_session_supported", true)
        }
        return json.bytes
    }
}
