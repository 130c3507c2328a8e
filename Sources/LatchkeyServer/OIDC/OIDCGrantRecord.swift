import Foundation
import LatchkeyDatabase
import SQLKit

/// One authorization of a client by a person (`oidc_grants`): the family that its code, its refresh
/// tokens and the access tokens they yield belong to. Revoking the grant ends all of them at once — which
/// is what a replayed code or refresh token calls for (RFC 6749 §4.1.2, RFC 9700 §4.14.2), what the person
/// does from "Apps with access", and what RFC 7009 revocation does.
struct OIDCGrantRecord: Sendable, Equatable {
    /// 22 characters of base64url (16 random bytes); the access tokens' `sid`.
    let id: String
    let clientId: String
    let accountId: String
    /// The browser session the person authorized from: RP-initiated logout ends the grants it made
    /// (those without `offline_access`).
    let sessionHash: [UInt8]?
    let scopes: [String]
    let nonce: String?
    /// When the person last signed in with a passkey (the session's creation): the id_token's `auth_time`.
    let authTime: Date
    /// RFC 8176 methods of that sign-in.
    let amr: [String]
    let createdAt: Date
    /// Until the code is exchanged, the code's expiry; then the last access token's or refresh token's.
    var expiresAt: Date
    var revokedAt: Date? = nil

    var isOffline: Bool { scopes.contains(OIDCScope.offlineAccess) }

    func isLive(at now: Date) -> Bool { revokedAt == nil && expiresAt > now }

    /// The grant as the tokens of a refresh that asked for fewer scopes see it: its scopes that are
    /// among `asked`, in the grant's order (RFC 6749 §6).
    func narrowed(to asked: Set<String>) -> OIDCGrantRecord {
        OIDCGrantRecord(
            id: id, clientId: clientId, accountId: accountId, sessionHash: sessionHash, scopes: scopes.filter(asked.contains),
            nonce: nonce, authTime: authTime, amr: amr, createdAt: createdAt, expiresAt: expiresAt, revokedAt: revokedAt)
    }
}

extension OIDCGrantRecord {
    /// An `oidc_grants` row (`SQL.oidcGrantColumns`, possibly prefixed `g.` in a join).
    init(row: any SQLRow) throws {
        self.init(
            id: try row.decode(column: "id", as: String.self),
            clientId: try row.decode(column: "client_id", as: String.self),
            accountId: try row.decode(column: "account_id", as: String.self),
            sessionHash: try row.decode(column: "session_hash", as: Data?.self).map { Array($0) },
            scopes: OIDCClientRecord.list(try row.decode(column: "scope", as: String.self)),
            nonce: try row.decode(column: "nonce", as: String?.self),
            authTime: Timestamp.date(try row.decode(column: "auth_time", as: Int64.self)),
            amr: OIDCClientRecord.list(try row.decode(column: "amr", as: String.self)),
            createdAt: Timestamp.date(try row.decode(column: "created_at", as: Int64.self)),
            expiresAt: Timestamp.date(try row.decode(column: "expires_at", as: Int64.self)),
            revokedAt: try row.decode(column: "revoked_at", as: Int64?.self).map(Timestamp.date))
    }
}

/// An authorization code as stored (`oidc_codes`): only its SHA-256, what it is bound to (RFC 6749
/// §4.1.3: the redirect URI; RFC 7636: the PKCE challenge), and whether it was used.
struct OIDCCodeRecord: Sendable, Equatable {
    let codeHash: [UInt8]
    let grantId: String
    let redirectURI: String
    /// The S256 `code_challenge`, when the request had one.
    let codeChallenge: String?
    let expiresAt: Date
    var usedAt: Date? = nil
}
