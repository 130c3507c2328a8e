/// The grants a client may use at the token endpoint (RFC 6749 §4, RFC 8628 §3.4). A client holds
/// `authorization_code` unless an operator says otherwise; the others are allowed one client at a time
/// (`latchkey admin clients add … --grant client_credentials`). `refresh_token` is not listed: a grant
/// with `offline_access` gets one, whatever grant made it.
enum OIDCGrantType {
    static let authorizationCode = "authorization_code"
    static let clientCredentials = "client_credentials"
    static let deviceCode = "urn:ietf:params:oauth:grant-type:device_code"
    static let refreshToken = "refresh_token"

    /// What a client may be allowed, in the order they are listed.
    static let allowable = [authorizationCode, clientCredentials, deviceCode]

    /// What the discovery document lists (`grant_types_supported`).
    static let supported = [authorizationCode, refreshToken, clientCredentials, deviceCode]

    /// A grant type as an operator may write it: its name, or `device_code` for the device flow's URN.
    static func canonical(_ value: String) -> String? {
        if value == "device_code" { return deviceCode }
        return allowable.contains(value) ? value : nil
    }
}
