import Foundation
import WebAuthn
import LatchkeyDatabase
import SQLKit

/// The admin console's session: its own token, table (`console_sessions`) and cookie, so that it is never
/// an ordinary session's bearer token and an ordinary session is never a console's. It is short (an hour
/// from the sign-in), records how it was made (`amr`: `webauthn` with user verification, `["hwk", "user"]`
/// in RFC 8176's words — the console accepts nothing else), and when its holder last proved presence with
/// a user-verified passkey: a change needs that within `stepUpWindow`, so a stolen cookie alone changes
/// nothing.
struct ConsoleSession: Sendable, Equatable {
    let accountId: String
    let displayName: String
    let amr: String
    let createdAt: Date
    let expiresAt: Date
    /// The last user-verified assertion (the sign-in's, or a step-up's).
    let verifiedAt: Date
    /// The role's scopes, read with the session on every request.
    let scopes: AdminScopes

    /// How long a console session lives (an ordinary one: `--session-ttl`, a week by default).
    static let lifetime: TimeInterval = 3600
    /// How long a passkey assertion lets changes through.
    static let stepUpWindow: TimeInterval = 300
    /// The `amr` recorded: a user-verified passkey (RFC 8176: hardware key and user presence/verification).
    static let passkeyAMR = "hwk user"
    /// A console token: `lkc_` and 43 base64url characters — not an ordinary session's shape, which
    /// `RequestAuthentication.isWellFormed` refuses before any look-up.
    static let tokenPrefix = "lkc_"

    /// Whether a change may go through at `now`.
    func isFresh(at now: Date) -> Bool {
        verifiedAt > now - Self.stepUpWindow && verifiedAt <= now + 1
    }

    /// A row of `SQL.consoleSession`.
    init(row: any SQLRow) throws {
        let text = try row.decode(column: "scopes", as: String.self)
        guard let scopes = AdminScopes(text: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "unknown admin role scopes \(text)"))
        }
        accountId = try row.decode(column: "account_id", as: String.self)
        displayName = try row.decode(column: "display_name", as: String.self)
        amr = try row.decode(column: "amr", as: String.self)
        createdAt = Timestamp.date(try row.decode(column: "created_at", as: Int64.self))
        expiresAt = Timestamp.date(try row.decode(column: "expires_at", as: Int64.self))
        verifiedAt = Timestamp.date(try row.decode(column: "verified_at", as: Int64.self))
        self.scopes = scopes
    }

    /// A new token: the text for the cookie, and the digest stored.
    static func generateToken() -> (text: String, hash: [UInt8]) {
        let text = tokenPrefix + Base64URL.encode(RandomBytes.make(32))
        return (text, SecretDigest.of(text))
    }

    /// A console token's shape: the prefix and 43 base64url characters; anything else is refused unread.
    static func isWellFormed(_ token: String) -> Bool {
        guard token.hasPrefix(tokenPrefix) else { return false }
        let bare = token.utf8.dropFirst(tokenPrefix.utf8.count)
        return bare.count == 43 && bare.allSatisfy { c in
            (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || (c >= 0x30 && c <= 0x39) || c == 0x2d || c == 0x5f
        }
    }
}

/// The console's cookie: HttpOnly, SameSite=Strict, `Path=/` (the admin API it authenticates is under
/// `/api/admin`), and over https the `__Host-` prefix, as the ordinary session's (`SessionCookie`) — but
/// under a name of its own, which `RequestAuthentication` never reads.
enum ConsoleCookie {
    static func name(secure: Bool) -> String { secure ? "__Host-latchkey_console" : "latchkey_console" }

    static func set(_ token: String, secure: Bool) -> String {
        "\(name(secure: secure))=\(token); Path=/; Max-Age=\(Int(ConsoleSession.lifetime)); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    static func clear(secure: Bool) -> String {
        "\(name(secure: secure))=; Path=/; Max-Age=0; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    static func token(in header: String?, secure: Bool) -> String? {
        guard let header else { return nil }
        let prefix = name(secure: secure) + "="
        for pair in header.split(separator: ";") {
            let trimmed = pair.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix(prefix) { return String(trimmed.dropFirst(prefix.count)) }
        }
        return nil
    }
}
