import LatchkeyAPI
import WebAuthn

/// The bodies of the PassKeysDemo-compatible API, as `PKD_Handler` (LittleGreenViper/PassKeysDemo)
/// writes and reads them: flat objects of strings, binary values in standard base64.

/// `POST ?operation=create`: the registration, as the app posts it after `ASAuthorizationController`.
struct PassKeysDemoCreateBody: JSONReadable {
    let clientDataJSON: String
    let attestationObject: String

    init(json reader: JSONShapeReader) throws(JSONShapeError) {
        clientDataJSON = try reader.string("clientDataJSON")
        attestationObject = try reader.string("attestationObject")
    }
}

/// `POST ?operation=login&credentialId=…`: the assertion. The app sends no `userHandle`.
struct PassKeysDemoLoginBody: JSONReadable {
    let clientDataJSON: String
    let authenticatorData: String
    let signature: String
    let credentialId: String

    init(json reader: JSONShapeReader) throws(JSONShapeError) {
        clientDataJSON = try reader.string("clientDataJSON")
        authenticatorData = try reader.string("authenticatorData")
        signature = try reader.string("signature")
        credentialId = try reader.string("credentialId")
    }
}

/// `GET ?operation=login`: the challenge (base64url) and `allowedIDs`, which Latchkey always leaves
/// empty — the seed listed every credential id to anyone who asked (PRIOR-ART weakness 2).
struct PassKeysDemoLoginChallenge: Encodable {
    let challenge: String
    let allowedIDs: [String]
}

/// The create answer the app needs to call itself signed in: all strings (`[String: String]`).
struct PassKeysDemoCreated: Encodable {
    let displayName: String
    let credo: String
    let bearerToken: String
}

/// `read` and `update`: the two texts percent-encoded, because the app reads them with
/// `removingPercentEncoding` (plain text with a `%` in it would not survive that).
struct PassKeysDemoUser: Encodable {
    let displayName: String
    let credo: String

    init(_ account: AccountRecord) {
        displayName = CompatibilityEncoding.percentEncoded(account.displayName)
        credo = CompatibilityEncoding.percentEncoded(account.credo)
    }
}

/// `logout` and `delete`: the app only checks for a 200.
struct PassKeysDemoDone: Encodable {}
