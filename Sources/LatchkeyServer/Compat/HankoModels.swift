import LatchkeyAPI
import WebAuthn

/// The bodies of the Hanko-demo-compatible endpoints, as Hanko's API answered the demo's web page and
/// its iOS app "Shiny" (teamhanko/apple-wwdc21-webauthn-example, apple-wwdc21-ios-demo-shiny): WebAuthn
/// L3-shaped JSON, binary values base64url.

/// `GET /registration_initialize`: Latchkey's creation options with what Hanko's added — a platform
/// authenticator, and the user's name also as `username` (one version of Shiny's `Models.swift` decodes
/// `user.username` and fails without it).
struct HankoCreationOptions: Encodable {
    struct User: Encodable {
        let id: String
        let name: String
        let username: String
        let displayName: String
    }

    struct PublicKey: Encodable {
        let rp: RelyingPartyEntityJSON
        let user: User
        let challenge: String
        let pubKeyCredParams: [CredentialParametersJSON]
        let timeout: Int?
        let excludeCredentials: [CredentialDescriptorJSON]
        let authenticatorSelection: AuthenticatorSelectionJSON
        let attestation: String
        let extensions: ExtensionInputsJSON?
    }

    let publicKey: PublicKey

    init(_ options: PublicKeyCredentialCreationOptionsJSON, userVerification: String) {
        var selection = options.authenticatorSelection
            ?? AuthenticatorSelectionJSON(residentKey: "required", requireResidentKey: true, userVerification: userVerification)
        selection.authenticatorAttachment = "platform"
        publicKey = PublicKey(
            rp: options.rp,
            user: User(id: options.user.id, name: options.user.name, username: options.user.name, displayName: options.user.displayName),
            challenge: options.challenge, pubKeyCredParams: options.pubKeyCredParams, timeout: options.timeout,
            excludeCredentials: options.excludeCredentials ?? [], authenticatorSelection: selection,
            attestation: options.attestation ?? "none", extensions: options.extensions)
    }
}

/// `POST /registration_finalize` and `/authentication_finalize` answer with the credential and its user,
/// as Hanko's API did; both clients only look at the status (200), and the session is the cookie.
struct HankoFinalized: Encodable {
    struct User: Encodable {
        let id: String
        let name: String
    }

    struct Credential: Encodable {
        let id: String
        let user: User
    }

    let credential: Credential

    init(credentialId: [UInt8], account: AccountRecord) {
        credential = Credential(id: Base64URL.encode(credentialId), user: User(id: account.id, name: account.displayName))
    }
}

/// The finalize requests, read leniently where Shiny is sparse: it sends `"id": ""` and `"rawId": ""`
/// (the registration's id is in the attestation object; the assertion's is found by `userHandle`).
struct HankoRegistrationBody: JSONReadable {
    let credential: RegistrationResponseJSON

    init(json reader: JSONShapeReader) throws(JSONShapeError) {
        credential = try RegistrationResponseJSON(json: reader)
    }
}

struct HankoAuthenticationBody: JSONReadable {
    let credential: AuthenticationResponseJSON

    init(json reader: JSONShapeReader) throws(JSONShapeError) {
        credential = try AuthenticationResponseJSON(json: reader)
    }
}
