import WebAuthn

/// The one seam between the client and whatever holds the keys. The client never sees a key: it hands
/// the server's options to the authenticator and sends back what it returns.
///
/// On Linux, Latchkey's SoftAuthenticator conforms (the `latchkey` tool adds the conformance). An iOS
/// app conforms with AuthenticationServices, without changing the client:
/// - `create`: build an `ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier:
///   options.rp.id)`, call `createCredentialRegistrationRequest(challenge:name:userID:)` with the decoded
///   `challenge`, `user.name` and `user.id`; set `userVerificationPreference`, `attestationPreference` and
///   `excludedCredentials` from the options; run it with `ASAuthorizationController`; map the
///   `ASAuthorizationPlatformPublicKeyCredentialRegistration` to `RegistrationResponseJSON`
///   (`credentialID` → id/rawId, `rawClientDataJSON`, `rawAttestationObject`, base64url-encoded).
/// - `get`: `createCredentialAssertionRequest(challenge:)`, `allowedCredentials` from allowCredentials (empty
///   for discoverable login), `userVerificationPreference`; map the `ASAuthorizationPlatformPublicKeyCredentialAssertion`
///   (`credentialID`, `rawClientDataJSON`, `rawAuthenticatorData`, `signature`, `userID`) to
///   `AuthenticationResponseJSON`.
/// The platform builds clientDataJSON for the app's associated domain, which the server must list among
/// its origins (and in `/.well-known/apple-app-site-association`); `origin` is ignored there.
///
/// Throw `ClientError.noPasskeyForServer` when no passkey fits, `ClientError.authenticatorRefused` when
/// the user or the authenticator declines.
public protocol Authenticator: Sendable {
    func create(_ options: PublicKeyCredentialCreationOptionsJSON, origin: String) async throws -> RegistrationResponseJSON
    func get(_ options: PublicKeyCredentialRequestOptionsJSON, origin: String) async throws -> AuthenticationResponseJSON
}
