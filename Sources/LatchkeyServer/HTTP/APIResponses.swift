import Foundation
import Hummingbird
import LatchkeyAPI
import WebAuthn

// Response bodies of the HTTP API about ceremonies and the account, each with how it writes itself
// (`APIResponseBody`; the login's own bodies through the `JSONWriter`). Passkeys' are in PasskeyJSON.swift.

/// `{"publicKey": options}`: what `navigator.credentials.create()` / `.get()` take
/// (`PublicKeyCredential.parse…OptionsFromJSON`).
struct OptionsResponse<Options: OptionsBody>: APIResponseBody {
    let publicKey: Options

    func response(from request: Request, context: some RequestContext) throws -> Response {
        try Options.response(wrapping: self)
    }
}

/// Options that `OptionsResponse` carries, and how the pair is written: both kinds by the `JSONWriter`
/// (a login's and a registration's hot path; the encoder took about 5 % of a registration's server CPU).
protocol OptionsBody: Encodable {
    static func response(wrapping options: OptionsResponse<Self>) throws -> Response
}

extension OptionsBody {
    static func response(wrapping options: OptionsResponse<Self>) throws -> Response { try JSONResponse.make(.ok, options) }
}

extension OptionsBody where Self: JSONWritable {
    static func response(wrapping options: OptionsResponse<Self>) throws -> Response { try JSONResponse.make(.ok, options) }
}

extension PublicKeyCredentialRequestOptionsJSON: OptionsBody {}
extension PublicKeyCredentialCreationOptionsJSON: OptionsBody {}

extension OptionsResponse: JSONWritable where Options: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { $0.member("publicKey", publicKey) }
    }
}

struct AccountJSON: APIResponseBody {
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

extension AccountJSON: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { json in
            json.member("createdAt", createdAt)
            json.member("credo", credo)
            json.member("displayName", displayName)
            json.member("id", id)
            json.member("userHandle", userHandle)
        }
    }
}

/// A sign-up's or login's answer: the session token (API clients; the page uses the cookie) and the account.
struct SessionResponse: APIResponseBody {
    let token: String
    let account: AccountJSON
    /// The PRF outputs the client's authenticator gave at this login (`clientExtensionResults.prf.results`),
    /// handed back with the session and nowhere else: never stored, never logged. Absent when it gave none.
    var prf: PRFValuesJSON? = nil
}

extension SessionResponse: JSONWritable {
    func write(to json: inout JSONWriter) {
        json.object { json in
            json.member("account", account)
            if let prf { json.member("prf", prf) }
            json.member("token", token)
        }
    }
}
