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

/// `GET /api/account`: the account, whether losing one device would lock the
/// person out (`recoveryRisk`, which the page turns into a warning), and what apps may learn about the
/// person through OpenID Connect (`username`, `email`, `emailVerified`, `groups`; the two texts null when
/// unset). Written by the encoder: the sign-up's and login's `AccountJSON` keeps its own fast path and
/// its shape.
struct AccountDetailsJSON: APIResponseBody {
    let account: AccountJSON
    let recoveryRisk: RecoveryRisk?
    let profile: AccountProfile?

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(account.createdAt, forKey: .createdAt)
        try c.encode(account.credo, forKey: .credo)
        try c.encode(account.displayName, forKey: .displayName)
        try c.encode(profile?.email, forKey: .email)  // null when unset, never left out (as below)
        try c.encode(profile?.emailVerified ?? false, forKey: .emailVerified)
        try c.encode(profile?.groups ?? [], forKey: .groups)
        try c.encode(account.id, forKey: .id)
        try c.encode(recoveryRisk, forKey: .recoveryRisk)
        try c.encode(account.userHandle, forKey: .userHandle)
        try c.encode(profile?.username, forKey: .username)
    }

    enum CodingKeys: String, CodingKey {
        case createdAt, credo, displayName, email, emailVerified, groups, id, recoveryRisk, userHandle, username
    }
}

/// Why the account would need an operator's recovery grant if the person lost a device: it has one
/// passkey (or none), or every passkey it has is bound to its device (backup eligibility, BE, clear:
/// none of them can be synced to another device). Nil when some other passkey would still sign in.
enum RecoveryRisk: String, Encodable, Sendable, Equatable {
    case singlePasskey = "single_passkey"
    case deviceBoundOnly = "device_bound_only"

    init?(passkeys: [CredentialRecord]) {
        if passkeys.count < 2 {
            self = .singlePasskey
        } else if !passkeys.contains(where: \.backupEligible) {
            self = .deviceBoundOnly
        } else {
            return nil
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
