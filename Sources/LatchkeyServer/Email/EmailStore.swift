import Foundation
import LatchkeyDatabase
import SQLKit

/// Email for recovery (`EmailService`): a person's address, confirmed by a link before it is used; the log
/// of the mails sent, which bounds how many go to one address and to one account in a window, in the
/// database so that every instance counts the same mails. Every change is audited in its transaction.
struct EmailStore: Sendable {
    /// The store whose connections and audit trail it shares.
    let store: Store

    var connections: DatabaseConnections { store.connections }
    var audit: AuditTrail { store.audit }

    /// How many mails one address and one account may be sent within `window`.
    struct MailLimits: Sendable {
        var perAddress: Int
        var perAccount: Int
        var window: TimeInterval
    }

    /// A verification token as stored: its SHA-256, its account, the address it confirms, its life.
    struct NewEmailToken: Sendable {
        let hash: [UInt8]
        let accountId: String
        let email: EmailAddress
        let createdAt: Date
        let expiresAt: Date
    }

    enum EmailChange: Sendable, Equatable {
        /// The account already has this address, verified: nothing changed, nothing to send.
        case alreadyVerified
        /// The address is stored unverified with a new token; `mail` says whether its mail may go
        /// (false: the address had its share of mails in the window).
        case pending(mail: Bool)
        /// The account had its share of mails in the window: nothing changed.
        case accountLimited
    }

    /// Stores `token.email` as the account's unverified address with `token` as its only verification
    /// token, unless the account was sent `limits.perAccount` mails within the window; logs the mail unless
    /// the address was sent its share. `event` is written when the address changed. Nil: no such account.
    func set(_ token: NewEmailToken, limits: MailLimits, event: AuditEvent) async throws -> EmailChange? {
        try await connections.transaction { db in
            try await db.run(StoreQuery(SQL.lockAccount, .text(token.accountId)))
            guard let profile = try await db.first(StoreQuery(SQL.accountProfile, .text(token.accountId))).map(AccountProfile.init(row:)) else {
                return nil
            }
            if profile.email?.lowercased() == token.email.normalized, profile.emailVerified { return .alreadyVerified }
            let since = token.createdAt - limits.window
            guard try await Self.mailCount(SQL.mailSentToAccount, .text(token.accountId), since: since, on: db) < limits.perAccount else {
                return .accountLimited
            }
            try await db.run(StoreQuery(SQL.setAccountEmail, .text(token.accountId), .text(token.email.value), .integer(false), .milliseconds(token.createdAt)))
            try await db.run(StoreQuery(SQL.deleteEmailTokens, .text(token.accountId), .text("verify")))
            try await db.run(StoreQuery(
                SQL.insertEmailToken, .blob(token.hash), .text(token.accountId), .text(token.email.value), .text("verify"),
                .milliseconds(token.createdAt), .milliseconds(token.expiresAt)))
            let mail = try await Self.logMail(to: token.email, accountId: token.accountId, purpose: "verify", at: token.createdAt, limits: limits, on: db)
            if profile.email != token.email.value { try await audit.append([event], on: db) }
            return .pending(mail: mail)
        }
    }

    /// Uses the verification token whose SHA-256 is `hash` for `accountId` and marks its address verified,
    /// when the address is still the account's. The address; nil when the token is unknown, another
    /// account's, used, expired or for an address the account no longer has (then nothing changes).
    func verify(tokenHash hash: [UInt8], accountId: String, at: Date, event: AuditEvent) async throws -> String? {
        struct Stale: Error {}
        do {
            return try await connections.transaction { db in
                guard let email = try await db.first(StoreQuery(SQL.useEmailToken, .blob(hash), .text(accountId), .milliseconds(at)))?
                    .decode(column: "email", as: String.self)
                else { return nil }
                guard try await db.first(StoreQuery(SQL.markEmailVerified, .text(accountId), .text(email), .milliseconds(at))) != nil else {
                    throw Stale()  // the token's use rolls back with it: nothing happened
                }
                try await audit.append([event], on: db)
                return email
            }
        } catch is Stale {
            return nil
        }
    }

    /// Removes the account's address and its tokens; false when it had none.
    func remove(accountId: String, at: Date, event: AuditEvent) async throws -> Bool {
        try await connections.transaction { db in
            try await db.run(StoreQuery(SQL.lockAccount, .text(accountId)))
            guard let profile = try await db.first(StoreQuery(SQL.accountProfile, .text(accountId))).map(AccountProfile.init(row:)),
                  profile.email != nil
            else { return false }
            try await db.run(StoreQuery(SQL.setAccountEmail, .text(accountId), .text(nil), .integer(false), .milliseconds(at)))
            try await db.run(StoreQuery(SQL.deleteAccountEmailTokens, .text(accountId)))
            try await audit.append([event], on: db)
            return true
        }
    }

    /// Enabled accounts with `address` as their verified address in any case (an operator may have given
    /// two the same), at most `limit`, each with its address as stored.
    func accountsWithVerified(_ address: EmailAddress, limit: Int) async throws -> [(id: String, displayName: String, email: String)] {
        try await connections.withConnection { db in
            try await db.all(StoreQuery(SQL.accountsByVerifiedEmail, .text(address.normalized), .integer(Int64(limit)))).map {
                (try $0.decode(column: "id", as: String.self), try $0.decode(column: "display_name", as: String.self),
                 try $0.decode(column: "email", as: String.self))
            }
        }
    }

    /// Logs a mail of `purpose` to `address` for `accountId` when both are under their limits; false
    /// (nothing logged) when either had its share.
    func admit(to address: EmailAddress, accountId: String, purpose: String, at: Date, limits: MailLimits) async throws -> Bool {
        try await connections.transaction { db in
            try await db.run(StoreQuery(SQL.lockAccount, .text(accountId)))
            guard try await Self.mailCount(SQL.mailSentToAccount, .text(accountId), since: at - limits.window, on: db) < limits.perAccount else {
                return false
            }
            return try await Self.logMail(to: address, accountId: accountId, purpose: purpose, at: at, limits: limits, on: db)
        }
    }

    /// Forgets tokens that expired and mail logged before `before`.
    func purge(tokensExpiredBefore: Date, loggedBefore: Date) async throws {
        try await connections.withConnection { db in
            try await db.run(StoreQuery(SQL.purgeEmailTokens, .milliseconds(tokensExpiredBefore)))
            try await db.run(StoreQuery(SQL.purgeMailLog, .milliseconds(loggedBefore)))
        }
    }

    /// What the log holds of an address: its SHA-256 (the accounts table is where an address is kept).
    static func addressHash(_ address: EmailAddress) -> [UInt8] { SecretDigest.of(address.normalized) }

    private static func mailCount(_ statement: StoreStatement, _ key: StoreValue, since: Date, on db: any SQLDatabase) async throws -> Int {
        try await db.first(StoreQuery(statement, key, .milliseconds(since)))?.decode(column: "sent", as: Int.self) ?? 0
    }

    /// Logs the mail unless the address was sent its share within the window; whether it was logged.
    private static func logMail(
        to address: EmailAddress, accountId: String, purpose: String, at: Date, limits: MailLimits, on db: any SQLDatabase
    ) async throws -> Bool {
        let hash = addressHash(address)
        guard try await mailCount(SQL.mailSentToAddress, .blob(hash), since: at - limits.window, on: db) < limits.perAddress else { return false }
        try await db.run(StoreQuery(SQL.logMail, .blob(RandomBytes.make(16)), .blob(hash), .text(accountId), .text(purpose), .milliseconds(at)))
        return true
    }
}

extension Store {
    /// Addresses, their confirmation tokens and the mail log that bounds sends.
    var emails: EmailStore { EmailStore(store: self) }
}
