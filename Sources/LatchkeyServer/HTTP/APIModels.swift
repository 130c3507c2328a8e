import Foundation
import WebAuthn

/// Request bodies of the HTTP API, which the request-body fuzz target (Fuzz/) compiles on their own; the
/// response bodies are in APIResponses.swift.
struct RegistrationOptionsRequest: JSONReadable {
    var displayName: String?
    var name: String?

    init(json reader: JSONShapeReader) throws(JSONShapeError) {
        displayName = try reader.optionalString("displayName")
        name = try reader.optionalString("name")
    }
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

struct AccountUpdateRequest: JSONReadable {
    var displayName: String?
    var credo: String?

    init(json reader: JSONShapeReader) throws(JSONShapeError) {
        displayName = try reader.optionalString("displayName")
        credo = try reader.optionalString("credo")
    }
}

/// `POST /api/admin/keys`: a new admin key's scope (read, write or recovery) and name.
struct AdminKeyRequest: JSONReadable {
    let scope: String
    let name: String

    init(json reader: JSONShapeReader) throws(JSONShapeError) {
        scope = try reader.string("scope")
        name = try reader.string("name")
    }
}

struct RenamePasskeyRequest: JSONReadable {
    let name: String

    init(json reader: JSONShapeReader) throws(JSONShapeError) {
        name = try reader.string("name")
    }
}
