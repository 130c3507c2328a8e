import Foundation
import LatchkeyAPI
import LatchkeyDatabase
import SQLKit

/// A claim an operator gives an account or a group (`latchkey admin claims set`), which apps read in the
/// id_token and at UserInfo when their grant holds `scope` (Pocket ID's custom claims): a name, a string
/// value, and the scope that releases it. An account's own claim outweighs its groups' claim of the same
/// name; among groups, the first group by name.
struct OIDCCustomClaim: Sendable, Equatable {
    let name: String
    let value: String
    let scope: String
    let updatedAt: Date

    init(name: String, value: String, scope: String, updatedAt: Date) {
        self.name = name
        self.value = value
        self.scope = scope
        self.updatedAt = updatedAt
    }

    /// A row of `SQL.oidcAccountClaims` or `SQL.oidcGroupClaims`.
    init(row: any SQLRow) throws {
        name = try row.decode(column: "name", as: String.self)
        value = try row.decode(column: "value", as: String.self)
        scope = try row.decode(column: "scope", as: String.self)
        updatedAt = Timestamp.date(try row.decode(column: "updated_at", as: Int64.self))
    }
}

/// What a custom claim may be, in one place for the admin API and the CLI; each broken rule its own 422.
enum OIDCClaimRules {
    static let nameBytes = 1...64
    static let valueBytes = 1...1024
    /// Claims per account and per group: every token of the person carries them.
    static let perSubject = 32
    /// The scopes that may release a custom claim (openid and offline_access release no person's data).
    static let scopes = [OIDCScope.profile, OIDCScope.email, OIDCScope.groups]
    /// Names a custom claim may never have: the protocol's (JWT, OpenID Connect Core §2 and §3.1.3.6,
    /// Back-Channel Logout, token exchange and introspection) and the person's standard claims
    /// Latchkey itself releases (Core §5.1), which a custom claim would contradict.
    static let reserved: Set<String> = [
        "sub", "iss", "aud", "exp", "iat", "nbf", "jti", "nonce", "auth_time", "acr", "amr", "azp", "at_hash", "c_hash", "s_hash",
        "sid", "events", "typ", "cnf", "client_id", "scope", "act", "may_act", "token_type", "active", "username",
        "name", "given_name", "family_name", "middle_name", "nickname", "preferred_username", "profile", "picture", "website",
        "email", "email_verified", "gender", "birthdate", "zoneinfo", "locale", "phone_number", "phone_number_verified", "address",
        "updated_at", "groups", "_claim_names", "_claim_sources",
    ]

    /// 1 to 64 of `A-Z a-z 0-9 . _ : -` (`department`, `https:…` is not one), not reserved.
    static func name(_ value: String) throws(APIError) -> String {
        let bytes = Array(value.utf8)
        guard nameBytes.contains(bytes.count), bytes.allSatisfy({ InputRules.isNameByte($0) || $0 == UInt8(ascii: ":") }) else {
            throw APIError(.claimNameInvalid, "A claim's name (name) must be 1 to 64 letters, digits, dots, underscores, colons or hyphens.")
        }
        guard !reserved.contains(value.lowercased()) else {
            throw APIError(.claimNameInvalid, "The claim name \"\(value)\" (name) is reserved: the protocol or Latchkey sets it.")
        }
        return value
    }

    /// 1 to 1024 bytes of text, no control characters.
    static func value(_ value: String) throws(APIError) -> String {
        guard valueBytes.contains(value.utf8.count), !value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw APIError(.claimValueInvalid, "A claim's value (value) must be 1 to 1024 bytes of text without control characters.")
        }
        return value
    }

    static func scope(_ value: String?) throws(APIError) -> String {
        guard let value else { return OIDCScope.profile }
        guard scopes.contains(value) else {
            throw APIError(.claimScopeInvalid, "A claim is released by profile, email or groups (scope, --scope), not \"\(value.prefix(64))\".")
        }
        return value
    }

    /// The name a client reads the person's groups under (`groupsClaim`, `--groups-claim`): `groups`
    /// (default), `roles`, …: a claim name that is not one of the protocol's.
    static func groupsClaim(_ value: String?) throws(APIError) -> String {
        guard let value, value != OIDCScope.groups else { return OIDCScope.groups }
        let bytes = Array(value.utf8)
        guard nameBytes.contains(bytes.count), bytes.allSatisfy({ InputRules.isNameByte($0) || $0 == UInt8(ascii: ":") }),
              !reserved.contains(value.lowercased())
        else {
            throw APIError(.claimScopeInvalid, "The groups claim's name (groupsClaim, --groups-claim) must be 1 to 64 letters, digits, dots, underscores, colons or hyphens, and not a reserved claim.")
        }
        return value
    }
}
