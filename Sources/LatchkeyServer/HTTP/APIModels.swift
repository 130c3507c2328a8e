import Foundation
import WebAuthn

/// Request and response bodies of the HTTP API (DESIGN §3).
struct RegistrationOptionsRequest: JSONReadable {
    var displayName: String?
    var name: String?

    init(json reader: JSONShapeReader) throws(JSONShapeError) {
        displayName = try reader.optionalString("displayName")
        name = try reader.optionalString("name")
    }
}

struct OptionsResponse<Options: Encodable>: Encodable {
    let publicKey: Options
}

struct RegistrationVerifyRequest: JSONReadable {
    let credential: RegistrationResponseJSON

    init(json reader: JSONShapeReader) throws(JSONShapeError) {
        credential = try RegistrationResponseJSON(json: try reader.object("credential"))
    }
}

struct LoginVerifyRequest: JSONReadable {
    let credential: AuthenticationResponseJSON

    init(json reader: JSONShapeReader) throws(JSONShapeError) {
        credential = try AuthenticationResponseJSON(json: try reader.object("credential"))
    }
}

/// A request body that reads itself from a document parsed by the strict, depth-limited `JSONValue`
/// parser (see `RequestBody.decode`). Every request body is one: none reaches Foundation's
/// `JSONDecoder`, whose scanner traps on some deeply nested inputs (exactly 513 `[`).
protocol JSONReadable {
    init(json reader: JSONShapeReader) throws(JSONShapeError)
}

struct AccountJSON: Encodable {
    let id: String
    let displayName: String
    let credo: String
    let createdAt: Date
    /// The WebAuthn user handle (base64url): the page needs it to tell the browser's passkey manager
    /// which passkeys are still valid (`signalAllAcceptedCredentials`). It is the caller's own.
    let userHandle: String

    init(_ account: AccountRecord) {
        id = account.id
        userHandle = Base64URL.encode(account.userHandle)
        displayName = account.displayName
        credo = account.credo
        createdAt = account.createdAt
    }
}

struct SessionResponse: Encodable {
    let token: String
    let account: AccountJSON
}

struct AccountUpdateRequest: JSONReadable {
    var displayName: String?
    var credo: String?

    init(json reader: JSONShapeReader) throws(JSONShapeError) {
        displayName = try reader.optionalString("displayName")
        credo = try reader.optionalString("credo")
    }
}

struct RenamePasskeyRequest: JSONReadable {
    let name: String

    init(json reader: JSONShapeReader) throws(JSONShapeError) {
        name = try reader.string("name")
    }
}
