/// Every error code Latchkey's HTTP API answers with, and the HTTP status each one has: the one place a
/// code is spelled. A refusal names its code from here (`APIError(.bodyTooLarge, …)`); the codes of a
/// failed WebAuthn verification are WebAuthn's own catalogue (`WebAuthnError.Rule.code`), mapped once,
/// in `APIError.init(_: WebAuthnError)`. `ErrorCatalogueTests` holds this list to the codes
/// `openapi.yaml` documents.
package struct ErrorCode: Sendable, Hashable, CustomStringConvertible {
    package let rawValue: String
    /// The HTTP status the code is sent with.
    package let kind: APIError.Kind
    /// Sent only by a compatibility API (PassKeysDemo, Hanko), which `openapi.yaml` does not describe.
    package let compatibilityOnly: Bool

    private init(_ rawValue: String, _ kind: APIError.Kind, compatibilityOnly: Bool = false) {
        self.rawValue = rawValue
        self.kind = kind
        self.compatibilityOnly = compatibilityOnly
    }

    package var description: String { rawValue }

    package static func == (lhs: ErrorCode, rhs: ErrorCode) -> Bool { lhs.rawValue == rhs.rawValue }
    package func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

    // MARK: 400: the request is malformed

    package static let badRequest = ErrorCode("bad_request", .badRequest)
    package static let malformedHTTP = ErrorCode("malformed_http", .badRequest)
    package static let malformedJSON = ErrorCode("malformed_json", .badRequest)
    package static let missingBody = ErrorCode("missing_body", .badRequest)
    package static let missingField = ErrorCode("missing_field", .badRequest)
    package static let invalidType = ErrorCode("invalid_type", .badRequest)
    package static let unsupportedContentType = ErrorCode("unsupported_content_type", .badRequest)
    package static let invalidPasskeyId = ErrorCode("invalid_passkey_id", .badRequest)
    package static let invalidAAGUID = ErrorCode("invalid_aaguid", .badRequest)
    package static let missingToken = ErrorCode("missing_token", .badRequest)
    package static let malformedTokenParameter = ErrorCode("malformed_token_parameter", .badRequest)
    package static let malformedAttestation = ErrorCode("malformed_attestation", .badRequest, compatibilityOnly: true)
    package static let credentialIdRequired = ErrorCode("credential_id_required", .badRequest, compatibilityOnly: true)
    package static let queryTooLong = ErrorCode("query_too_long", .badRequest, compatibilityOnly: true)
    package static let malformedQuery = ErrorCode("malformed_query", .badRequest, compatibilityOnly: true)
    package static let duplicateParameter = ErrorCode("duplicate_parameter", .badRequest, compatibilityOnly: true)
    package static let missingOperation = ErrorCode("missing_operation", .badRequest, compatibilityOnly: true)
    package static let unknownOperation = ErrorCode("unknown_operation", .badRequest, compatibilityOnly: true)
    /// PassKeysDemo's query and body name different credentials (WebAuthn's own code of that name is
    /// §7.2 step 5's, a 401).
    package static let queryCredentialIdMismatch = ErrorCode("credential_id_mismatch", .badRequest, compatibilityOnly: true)
    package static let invalidBase64 = ErrorCode("invalid_base64", .badRequest, compatibilityOnly: true)
    /// A query parameter of the admin API is malformed (a time, a number, a cursor).
    package static let invalidParameter = ErrorCode("invalid_parameter", .badRequest)

    /// OpenID Connect: an authorization or logout request that cannot even be answered at the client —
    /// unreadable, no registered client, or a redirect URI the client did not register (shown on
    /// Latchkey's page, never redirected: Core §3.1.2.6).
    package static let oidcMalformedRequest = ErrorCode("oidc_malformed_request", .badRequest)
    package static let oidcInvalidClient = ErrorCode("oidc_invalid_client", .badRequest)
    package static let oidcInvalidRedirectURI = ErrorCode("oidc_invalid_redirect_uri", .badRequest)
    /// Forward authentication: the address to check or to go back to is missing, malformed, or not on
    /// the cookie domain (never redirected to).
    package static let invalidReturnURL = ErrorCode("invalid_return_url", .badRequest)

    // MARK: 401: not authenticated, or a ceremony failed verification

    package static let notAuthenticated = ErrorCode("not_authenticated", .unauthorized)
    package static let unknownChallenge = ErrorCode("unknown_challenge", .unauthorized)
    package static let invalidClient = ErrorCode("invalid_client", .unauthorized)
    /// The signature counter moved while this login ran (the stored counter changed under it).
    package static let signCountRegression = ErrorCode("sign_count_regression", .unauthorized)
    /// The admin API's key is missing, unknown or revoked.
    package static let adminKeyInvalid = ErrorCode("admin_key_invalid", .unauthorized)
    /// A recovery code that cannot be exchanged (or whose grant is no longer live), whatever the reason.
    package static let invalidRecoveryCode = ErrorCode("invalid_recovery_code", .unauthorized)
    /// An invitation code that cannot be used — mistyped, expired, used up or revoked — whatever the reason.
    package static let invalidInvitation = ErrorCode("invalid_invitation", .unauthorized)

    // MARK: 403: not allowed

    package static let originNotAllowed = ErrorCode("origin_not_allowed", .forbidden)
    package static let originRequired = ErrorCode("origin_required", .forbidden)
    package static let wrongAccount = ErrorCode("wrong_account", .forbidden)
    package static let recentSignInRequired = ErrorCode("recent_sign_in_required", .forbidden)
    /// An operator disabled the account: its logins are refused until it is enabled again.
    package static let accountDisabled = ErrorCode("account_disabled", .forbidden)
    /// The admin key is valid but its scope does not cover the operation.
    package static let insufficientScope = ErrorCode("insufficient_scope", .forbidden)
    /// The admin console: a change needs a user-verified passkey assertion made within the last few minutes.
    package static let stepUpRequired = ErrorCode("step_up_required", .forbidden)
    /// The admin console: the passkey's account holds no admin role.
    package static let notAdmin = ErrorCode("not_admin", .forbidden)
    /// The first administrator's setup link is unknown, expired, used, or an administrator exists already.
    package static let setupLinkInvalid = ErrorCode("setup_link_invalid", .unauthorized)
    /// A recovery session may only add a passkey.
    package static let recoverySessionRestricted = ErrorCode("recovery_session_restricted", .forbidden)
    /// The operator's authenticator policy refuses this passkey (the message names the rule).
    package static let authenticatorNotAllowed = ErrorCode("authenticator_not_allowed", .forbidden)
    /// The OpenID Connect client admits only members of some groups, and the person is in none of them.
    package static let oidcGroupNotAllowed = ErrorCode("oidc_group_not_allowed", .forbidden)
    /// The sign-up policy (`--signup invite|closed`) lets nobody make an account on their own.
    package static let signupClosed = ErrorCode("signup_closed", .forbidden)

    // MARK: 404, 405: nothing there

    package static let notFound = ErrorCode("not_found", .notFound)
    package static let notEnabled = ErrorCode("not_enabled", .notFound)
    package static let unknownCredential = ErrorCode("unknown_credential", .notFound)
    package static let unknownPasskey = ErrorCode("unknown_passkey", .notFound)
    package static let unknownAccount = ErrorCode("unknown_account", .notFound)
    package static let unknownAdminKey = ErrorCode("unknown_admin_key", .notFound)
    package static let unknownRecoveryGrant = ErrorCode("unknown_recovery_grant", .notFound)
    /// No invitation with this id is live (the admin API's revoke).
    package static let unknownInvitation = ErrorCode("unknown_invitation", .notFound)
    package static let unknownDeviceRequest = ErrorCode("unknown_device_request", .notFound)
    /// The device flow's user code (RFC 8628) is unknown, expired, or was decided already.
    package static let unknownUserCode = ErrorCode("unknown_user_code", .notFound)
    /// An email confirmation link that is unknown, used, expired, replaced or another account's.
    package static let unknownEmailToken = ErrorCode("unknown_email_token", .notFound)
    package static let unknownIcon = ErrorCode("unknown_icon", .notFound)
    package static let unknownProvider = ErrorCode("unknown_provider", .notFound)
    /// No OpenID Connect client has this id (the admin API, `latchkey admin clients`).
    package static let unknownClient = ErrorCode("unknown_client", .notFound)
    /// The person gave this client no access (no consent, no live grant): "Apps with access".
    package static let unknownApp = ErrorCode("unknown_app", .notFound)
    /// The account or group has no custom claim of this name.
    package static let unknownClaim = ErrorCode("unknown_claim", .notFound)
    package static let noIcon = ErrorCode("no_icon", .notFound)
    package static let methodNotAllowed = ErrorCode("method_not_allowed", .methodNotAllowed)

    // MARK: 409: conflicts with the current state

    package static let credentialExists = ErrorCode("credential_exists", .conflict)
    package static let lastPasskey = ErrorCode("last_passkey", .conflict)
    package static let tooManyPasskeys = ErrorCode("too_many_passkeys", .conflict)
    /// Another OpenID Connect client has this id.
    package static let clientIdTaken = ErrorCode("client_id_taken", .conflict)
    /// A public client has no secret to rotate (make it confidential with an update instead).
    package static let clientIsPublic = ErrorCode("client_is_public", .conflict)
    /// The client is declared in the configuration file (`[[oidc-client]]`): it is changed or removed there.
    package static let clientManaged = ErrorCode("client_managed", .conflict)
    /// Another account has this username.
    package static let usernameTaken = ErrorCode("username_taken", .conflict)
    package static let wrongCeremony = ErrorCode("wrong_ceremony", .conflict, compatibilityOnly: true)
    package static let alreadySignedIn = ErrorCode("already_signed_in", .conflict, compatibilityOnly: true)

    // MARK: 413, 422, 429, 5xx

    package static let bodyTooLarge = ErrorCode("body_too_large", .tooLarge)
    package static let invalidField = ErrorCode("invalid_field", .invalidField)
    // The OpenID Connect client rules (`OIDCClientRules`), one code per rule.
    package static let clientIdInvalid = ErrorCode("client_id_invalid", .invalidField)
    package static let clientNameInvalid = ErrorCode("client_name_invalid", .invalidField)
    package static let redirectURIRequired = ErrorCode("redirect_uri_required", .invalidField)
    package static let redirectURIInvalid = ErrorCode("redirect_uri_invalid", .invalidField)
    package static let postLogoutURIInvalid = ErrorCode("post_logout_uri_invalid", .invalidField)
    /// A back-channel logout URI that is not https (or http on a loopback host), or holds a fragment.
    package static let backchannelLogoutURIInvalid = ErrorCode("backchannel_logout_uri_invalid", .invalidField)
    package static let idTokenAlgInvalid = ErrorCode("id_token_alg_invalid", .invalidField)
    package static let clientScopeInvalid = ErrorCode("client_scope_invalid", .invalidField)
    package static let openidScopeRequired = ErrorCode("openid_scope_required", .invalidField)
    /// A grant type a client cannot be allowed (`client_credentials` needs a confidential client).
    package static let grantTypeInvalid = ErrorCode("grant_type_invalid", .invalidField)
    /// An API scope an operator defines for a client that is not a name, or is one of the person scopes.
    package static let apiScopeInvalid = ErrorCode("api_scope_invalid", .invalidField)
    /// A client's registered keys (`private_key_jwt`) are not a JWKS of public signing keys.
    package static let jwksInvalid = ErrorCode("jwks_invalid", .invalidField)
    /// A custom claim's name that is not a name, is reserved (`sub`, `iss`, …), or one too many.
    package static let claimNameInvalid = ErrorCode("claim_name_invalid", .invalidField)
    /// A custom claim's value that is empty, too long, or holds control characters.
    package static let claimValueInvalid = ErrorCode("claim_value_invalid", .invalidField)
    /// A custom claim's scope other than profile, email or groups; or a client's groups claim name.
    package static let claimScopeInvalid = ErrorCode("claim_scope_invalid", .invalidField)
    // The account profile's rules (`InputRules+Profile.swift`); group names are the clients' too.
    package static let groupNameInvalid = ErrorCode("group_name_invalid", .invalidField)
    package static let usernameInvalid = ErrorCode("username_invalid", .invalidField)
    package static let emailInvalid = ErrorCode("email_invalid", .invalidField)
    // The PRF extension's inputs and outputs (`InputRules+PRF.swift`): a salt or an output of the wrong size,
    // not base64url, or too many credentials.
    package static let invalidPRF = ErrorCode("invalid_prf", .invalidField)
    package static let rateLimited = ErrorCode("rate_limited", .rateLimited)
    /// The account was sent as many emails as it may be in an hour (`EmailService.limits`).
    package static let tooManyEmails = ErrorCode("too_many_emails", .rateLimited)
    /// As many device requests are waiting as the server keeps (`DeviceApprovalService.liveLimit`).
    package static let tooManyDeviceRequests = ErrorCode("too_many_device_requests", .unavailable)
    package static let internalError = ErrorCode("internal_error", .internalError)
    package static let databaseUnavailable = ErrorCode("database_unavailable", .unavailable)
    /// `/readyz`: the database answers but its schema is not the one this binary runs on.
    package static let notReady = ErrorCode("not_ready", .unavailable)

    /// Every code above.
    package static let catalogue: [ErrorCode] = [
        badRequest, malformedHTTP, malformedJSON, missingBody, missingField, invalidType, unsupportedContentType, invalidPasskeyId,
        invalidAAGUID, missingToken, malformedTokenParameter, malformedAttestation, credentialIdRequired, queryTooLong, malformedQuery,
        duplicateParameter, missingOperation, unknownOperation, queryCredentialIdMismatch, invalidBase64, invalidParameter,
        notAuthenticated, unknownChallenge, invalidClient, signCountRegression, adminKeyInvalid, invalidRecoveryCode,
        originNotAllowed, originRequired, wrongAccount, recentSignInRequired, accountDisabled, insufficientScope, stepUpRequired, notAdmin, setupLinkInvalid,
        recoverySessionRestricted, authenticatorNotAllowed,
        notFound, notEnabled, unknownCredential, unknownPasskey, unknownAccount, unknownAdminKey, unknownRecoveryGrant, unknownDeviceRequest, unknownUserCode, unknownEmailToken, unknownIcon, unknownProvider, noIcon, methodNotAllowed,
        credentialExists, lastPasskey, tooManyPasskeys, wrongCeremony, alreadySignedIn,
        bodyTooLarge, invalidField, rateLimited, tooManyEmails, tooManyDeviceRequests, internalError, databaseUnavailable, notReady,
        oidcMalformedRequest, oidcInvalidClient, oidcInvalidRedirectURI, oidcGroupNotAllowed, invalidReturnURL,
        unknownClient, unknownApp, unknownClaim, clientIdTaken, clientIsPublic, clientManaged, usernameTaken,
        clientIdInvalid, clientNameInvalid, redirectURIRequired, redirectURIInvalid, postLogoutURIInvalid, backchannelLogoutURIInvalid, idTokenAlgInvalid,
        clientScopeInvalid, openidScopeRequired, grantTypeInvalid, apiScopeInvalid, jwksInvalid, claimNameInvalid, claimValueInvalid, claimScopeInvalid, groupNameInvalid, usernameInvalid, emailInvalid, invalidPRF,
        invalidInvitation, signupClosed, unknownInvitation,
    ]
}
