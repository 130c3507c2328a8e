import Foundation
import WebAuthn

/// Request bodies of the HTTP API, which the request-body fuzz target (Fuzz/) builds without the HTTP
/// stack; the response bodies are in LatchkeyServer's APIResponses.swift.
package struct RegistrationOptionsRequest: JSONReadable {
    package var displayName: String?
    package var name: String?

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        displayName = try reader.optionalString("displayName")
        name = try reader.optionalString("name")
    }
}

package struct RegistrationVerifyRequest: JSONReadable {
    package let credential: RegistrationResponseJSON

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        credential = try RegistrationResponseJSON(json: try reader.object("credential"))
    }
}

/// `POST /api/login/options` (the body is optional): PRF inputs for this login (WebAuthn L3 §10.1.4), in
/// the JSON form of `AuthenticationExtensionsPRFInputs` — `eval` and `evalByCredential`, salts base64url.
/// Their sizes are `InputRules.prfInputs`'s to check.
package struct LoginOptionsRequest: JSONReadable {
    package var prf: PRFInputsJSON?

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        prf = try reader.optionalObject("prf").map { prf throws(JSONShapeError) in
            var byCredential: [String: PRFValuesJSON]?
            if let map = try prf.optionalObject("evalByCredential") {
                var entries: [String: PRFValuesJSON] = [:]
                // A repeated member counts once, the last, as the parser's objects are read everywhere else.
                for (key, value) in map.object.members.reversed() where entries[key] == nil {
                    entries[key] = try PRFValuesJSON(json: try JSONShapeReader(value, at: map.path + [key]))
                }
                byCredential = entries
            }
            return PRFInputsJSON(eval: try prf.optionalObject("eval").map(PRFValuesJSON.init(json:)), evalByCredential: byCredential)
        }
    }
}

package struct LoginVerifyRequest: JSONReadable {
    package let credential: AuthenticationResponseJSON

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        credential = try AuthenticationResponseJSON(json: try reader.object("credential"))
    }
}

/// A request body that reads itself from a document parsed by the strict, depth-limited `JSONValue`
/// parser (see `RequestBody.decode`). Every request body is one: none reaches Foundation's
/// `JSONDecoder`, whose scanner traps on some deeply nested inputs (exactly 513 `[`).
package protocol JSONReadable {
    init(json reader: JSONShapeReader) throws(JSONShapeError)
}

package struct AccountUpdateRequest: JSONReadable {
    package var displayName: String?
    package var credo: String?
    /// The person's username for other apps (`preferred_username`); null removes it.
    package var username: FieldChange<String> = .keep

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        displayName = try reader.optionalString("displayName")
        credo = try reader.optionalString("credo")
        username = try reader.stringChange("username")
    }
}

/// `POST /api/recovery/exchange`: the recovery code, as given (case, spaces and dashes are forgiven).
package struct RecoveryExchangeRequest: JSONReadable {
    package let code: String

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        code = try reader.string("code")
    }
}

/// `POST /api/admin/accounts/{id}/recovery`: how long the grant lives (default an hour).
package struct RecoveryIssueRequest: JSONReadable {
    package let ttlSeconds: Int?

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        ttlSeconds = try reader.optionalInt("ttlSeconds")
    }
}

/// `POST /api/device-requests` (its body is optional): the username of the account the new device
/// wants to join, when the person gives it — then only that account can find, approve or deny the
/// request (review 4, S4-12: anyone who saw the code could approve it into their own account).
package struct DeviceRequestCreateRequest: JSONReadable {
    package let username: String?

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        username = try reader.optionalString("username")
    }
}

/// `POST /api/device-requests/{id}/poll`: the secret the new device got with its request.
package struct DevicePollRequest: JSONReadable {
    package let secret: String

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        secret = try reader.string("secret")
    }
}

/// `POST /api/account/device-requests/find`: the short code the new device shows.
package struct DeviceFindRequest: JSONReadable {
    package let code: String

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        code = try reader.string("code")
    }
}

/// `POST /api/admin/keys`: a new admin key's scope (read, write or recovery) and name.
package struct AdminKeyRequest: JSONReadable {
    package let scope: String
    package let name: String

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        scope = try reader.string("scope")
        name = try reader.string("name")
    }
}

/// `PUT /api/admin/accounts/{id}/admin`: the scopes the administrator holds (`read`, `write`,
/// `recovery`; write and recovery may go together).
package struct AdminRoleRequest: JSONReadable {
    package let scopes: [String]

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        scopes = try reader.stringArray("scopes")
    }
}

/// `POST /admin/api/session/verify`: the console's passkey assertion, and on the first administrator's
/// setup page the setup link's code.
package struct ConsoleVerifyRequest: JSONReadable {
    package let credential: AuthenticationResponseJSON
    package var setupCode: String?

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        credential = try AuthenticationResponseJSON(json: try reader.object("credential"))
        setupCode = try reader.optionalString("setupCode")
    }
}

package struct RenamePasskeyRequest: JSONReadable {
    package let name: String

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        name = try reader.string("name")
    }
}

/// `PUT /api/account/email` (the person's address, to confirm) and `POST /api/recovery/email` (the address
/// to mail a recovery link to, if it is a verified one): an email address, checked by the server.
package struct EmailAddressRequest: JSONReadable {
    package let email: String

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        email = try reader.string("email")
    }
}

/// `POST /api/account/email/verify`: the token the confirmation link carried in its fragment.
package struct EmailVerifyRequest: JSONReadable {
    package let token: String

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        token = try reader.string("token")
    }
}

/// `POST /api/oidc/authorization` and `POST /api/oidc/consent`: the authorization request's query as
/// the page received it at `/authorize`, the stamp a login interaction gave (`after`), and on the consent
/// screen the person's answer (`allow`).
package struct OIDCAuthorizationBody: JSONReadable {
    package let query: String
    package let after: String?
    package let allow: Bool?

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        query = try reader.string("query")
        after = try reader.optionalString("after")
        allow = try reader.optionalBool("allow")
    }
}

/// `POST /api/oidc/device`: the user code the person typed or the verification page was given (RFC 8628
/// §3.3), and — to decide — whether they allow the app (left out: what the code is for).
package struct OIDCDeviceBody: JSONReadable {
    package let userCode: String
    package let allow: Bool?

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        userCode = try reader.string("userCode")
        allow = try reader.optionalBool("allow")
    }
}

/// `POST /api/oidc/logout`: the end-session request's query, and whether the person confirmed signing
/// out (needed when the request carries no valid `id_token_hint`).
package struct OIDCLogoutBody: JSONReadable {
    package let query: String
    package let confirmed: Bool?

    package init(json reader: JSONShapeReader) throws(JSONShapeError) {
        query = try reader.string("query")
        confirmed = try reader.optionalBool("confirmed")
    }
}
