import Foundation
import LatchkeyAPI
import LatchkeyDatabase
import SQLKit

/// What an operator needs from the database (`AdminService`): finding accounts, their sessions,
/// disabling and enabling them, and the admin API's keys. Every change writes its audit event in its own
/// transaction.
struct AdminAccountStore: Sendable {
    /// The store whose connections and audit trail it shares.
    let store: Store

    var connections: DatabaseConnections { store.connections }
    var audit: AuditTrail { store.audit }

    /// Which accounts to find (`latchkey admin accounts search`, `GET /api/admin/accounts`).
    struct AccountSearch: Sendable, Equatable {
        /// The whole account id, or text in the display name or a passkey's name (any case); empty: all.
        var text = ""
        /// Holding a passkey with this AAGUID.
        var aaguid: [UInt8]? = nil
        /// Last login with any passkey at or after, and before (never signed in counts as the epoch).
        var lastLoginFrom: Date? = nil
        var lastLoginBefore: Date? = nil
        /// Only accounts whose id sorts after this one (paging: the previous page's last).
        var after = ""
        var limit = 50
    }

    /// An account with the counts an operator looks at first.
    struct AccountSummary: Sendable, Equatable {
        let account: AccountRecord
        let passkeys: Int
        let sessions: Int
        let lastLoginAt: Date?
    }

    /// An index yields at most this many rows, or the search reads the accounts in id order instead:
    /// under it, reading and sorting every account the index names is cheap; over it, at least one account
    /// in (accounts ÷ this) matches, and the first page fills after a few thousand in id order. About
    /// √(page × accounts) for a million accounts, where both ways cost the same (`scripts/bench-admin-search`).
    static let searchIndexLimit = 4000
    /// PostgreSQL: a text whose name matches stay under this many (of accounts, and of passkeys) is searched
    /// among the ids its first reading of the trigram indexes found, instead of counting them and reading
    /// the indexes again (a reading costs about 7 ms on a million accounts; `scripts/bench-admin-search`).
    static let searchFoundLimit = 500

    /// The accounts matching `search`, in id order. The conditions are always the same statement's; which
    /// accounts it looks at is chosen here, from how many rows each usable index would give (counted up to
    /// `searchIndexLimit`): the fewest, or every account in id order when no condition is rare enough.
    /// A text needs `AccountSearchIndex.shortestText` characters (`AdminService` refuses shorter ones).
    /// `foundLimit`: `searchFoundLimit`, or a smaller one for a test to take PostgreSQL's counted way with
    /// a few accounts.
    func search(_ search: AccountSearch, now: Date, foundLimit: Int = AdminAccountStore.searchFoundLimit) async throws -> [AccountSummary] {
        let lowered = search.text.lowercased()
        let escaped = lowered.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_")
        let pattern = "%\(escaped)%"
        let from = search.lastLoginFrom.map(Timestamp.milliseconds) ?? .min
        let before = search.lastLoginBefore.map(Timestamp.milliseconds) ?? .max
        let hasRange = search.lastLoginFrom != nil || search.lastLoginBefore != nil
        let values: [StoreValue] = [
            .text(search.after), .integer(Int64(search.limit)), .text(search.text), .text(pattern),
            .blob(search.aaguid ?? []), .integer(search.aaguid != nil), .integer(from), .integer(before),
            .milliseconds(now), .integer(hasRange),
        ]
        let flavor = connections.flavor
        let limit = StoreValue.integer(Int64(Self.searchIndexLimit))
        return try await connections.withConnection { db in
            // Each usable index: how many rows it gives (up to the limit), and the search among them.
            var choices: [(rows: Int, query: StoreQuery)] = []
            func count(_ query: StoreQuery) async throws -> Int {
                try await db.first(query)?.decode(column: "n", as: Int.self) ?? 0
            }
            if !search.text.isEmpty {
                if flavor == .sqlite, let fts = AccountSearchIndex.ftsQuery(lowered) {
                    let rows = try await count(StoreQuery(SQL.countNameTrigramsSQLite, .text(fts), limit))
                    choices.append((rows, StoreQuery(SQL.searchAccountsByTextSQLite, values: values + [.text(fts)])))
                } else if flavor == .postgres {
                    // A rare text's candidates are taken from this one reading of the indexes; a commoner
                    // one is counted up to the limit and read again by its search.
                    let found = try await db.all(StoreQuery(SQL.nameMatchesPostgres, .text(pattern), .integer(Int64(foundLimit))))
                        .map { (kind: try $0.decode(column: "kind", as: String.self), id: try $0.decode(column: "id", as: String.self)) }
                    let byName = found.count(where: { $0.kind == "a" })
                    if byName < foundLimit, found.count - byName < foundLimit {
                        var json = JSONWriter()
                        json.array(found) { $0.string($1.id) }
                        let ids = StoreValue.text(String(decoding: json.bytes, as: UTF8.self))
                        choices.append((found.count, StoreQuery(SQL.searchAccountsAmongFoundPostgres, values: values + [ids])))
                    } else {
                        let rows = try await count(StoreQuery(SQL.countNamesPostgres, .text(pattern), limit))
                        choices.append((rows, StoreQuery(SQL.searchAccountsByTextPostgres, values: values)))
                    }
                }
            }
            if let aaguid = search.aaguid {
                let rows = try await count(StoreQuery(SQL.countAAGUID, .blob(aaguid), limit))
                choices.append((rows, StoreQuery(SQL.searchAccountsByAAGUID[flavor] ?? SQL.searchAccounts, values: values)))
            }
            // Never signed in counts as 0: only a range that starts after it leaves those accounts out.
            if from > 0 {
                let rows = try await count(StoreQuery(SQL.countLastUse, .integer(from), limit, .integer(before)))
                choices.append((rows, StoreQuery(SQL.searchAccountsByLastLogin[flavor] ?? SQL.searchAccounts, values: values)))
            }
            let query = choices.filter { $0.rows < Self.searchIndexLimit }.min { $0.rows < $1.rows }?.query
                ?? StoreQuery(SQL.searchAccounts, values: values)
            return try await db.all(query).map(AccountSummary.init(row:))
        }
    }

    /// One account's summary, by its id (not a search: the primary key); nil when there is none.
    func summary(id: String, now: Date) async throws -> AccountSummary? {
        try await connections.withConnection { db in
            try await db.first(StoreQuery(SQL.accountSummary, .text(id), .milliseconds(now))).map(AccountSummary.init(row:))
        }
    }

    /// A live session as an operator sees it: never its token or its hash, only the hash's first bytes.
    struct SessionSummary: Sendable, Equatable {
        /// The first 8 bytes of the token's hash (an access token's `sid`).
        let sid: [UInt8]
        let createdAt: Date
        let expiresAt: Date
        let credentialId: [UInt8]?
        let userVerified: Bool
    }

    func sessions(accountId: String, now: Date) async throws -> [SessionSummary] {
        try await connections.withConnection { db in
            try await db.all(StoreQuery(SQL.accountSessions, .text(accountId), .milliseconds(now))).map { row in
                SessionSummary(
                    sid: Array(try row.decode(column: "sid", as: Data.self)),
                    createdAt: Timestamp.date(try row.decode(column: "created_at", as: Int64.self)),
                    expiresAt: Timestamp.date(try row.decode(column: "expires_at", as: Int64.self)),
                    credentialId: try row.decode(column: "credential_id", as: Data?.self).map { Array($0) },
                    userVerified: try row.decode(column: "user_verified", as: Int.self) != 0)
            }
        }
    }

    /// Disables (`at` set) or enables (`at` nil) the account. Disabling also ends every session, in the
    /// same transaction, so that nothing the account held keeps working. `event` gets the number of
    /// sessions ended. False when there is no such account. The apps its sessions signed it in to are
    /// sent back-channel logout tokens.
    func setDisabled(
        id: String, at disabledAt: Date?, now: Date, event: @escaping @Sendable (Int) -> AuditEvent
    ) async throws -> Bool {
        try await connections.transaction { db in
            let changed = try await db.changedRows(StoreQuery(
                SQL.setAccountDisabled, .text(id), .integer(disabledAt.map(Timestamp.milliseconds)), .milliseconds(now)))
            guard changed == 1 else { return false }
            if disabledAt != nil { try await store.queueOIDCLogouts(endingSessionsOf: id, at: now, on: db) }
            let ended = disabledAt == nil ? 0 : try await db.changedRows(StoreQuery(SQL.deleteAccountSessions, .text(id)))
            try await audit.append([event(ended)], on: db)
            return true
        }
    }

    /// An operator's removal of a passkey: unlike the holder's own, it may remove the last one when
    /// `allowLast` (the person then needs recovery), and it ends every session the passkey opened.
    func removeCredential(id: [UInt8], accountId: String, allowLast: Bool, event: AuditEvent) async throws -> Store.DeleteCredentialOutcome {
        try await connections.transaction { db in
            try await db.run(StoreQuery(SQL.lockAccount, .text(accountId)))
            let ids = try await db.all(StoreQuery(SQL.accountCredentialIds, .text(accountId)))
                .map { Array(try $0.decode(column: "id", as: Data.self)) }
            guard ids.contains(id) else { return .notFound }
            guard ids.count > 1 || allowLast else { return .lastPasskey }
            try await db.run(StoreQuery(SQL.deleteCredential, .blob(id), .text(accountId)))
            try await store.queueOIDCLogouts(endingSessionsOpenedBy: id, accountId: accountId, except: [], at: event.at, on: db)
            _ = try await db.changedRows(StoreQuery(SQL.deleteCredentialAllSessions, .blob(id), .text(accountId)))
            try await audit.append([event], on: db)
            return .deleted
        }
    }
}

extension AdminAccountStore.AccountSummary {
    /// A row of `SQL.accountSummaryColumns`.
    init(row: any SQLRow) throws {
        self.init(
            account: try AccountRecord(row: row), passkeys: try row.decode(column: "passkeys", as: Int.self),
            sessions: try row.decode(column: "sessions", as: Int.self),
            lastLoginAt: try row.decode(column: "last_login_at", as: Int64?.self).map(Timestamp.date))
    }
}

extension Store {
    /// The operator's reads and writes of accounts.
    var adminAccounts: AdminAccountStore { AdminAccountStore(store: self) }
}
