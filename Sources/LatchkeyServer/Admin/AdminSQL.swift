import LatchkeyDatabase

/// The statements of operating Latchkey (`AdminAccountStore.swift`): finding accounts, disabling them, admin keys.
extension SQL {
    /// An account with what an operator looks at first: how many passkeys, the last login with any, and
    /// its sessions live at `now` (the placeholder that holds the time).
    static func accountSummaryColumns(now: String) -> String {
        """
        a.id, a.user_handle, a.display_name, a.credo, a.created_at, a.updated_at, a.disabled_at,
        (SELECT count(*) FROM credentials c WHERE c.account_id = a.id) AS passkeys,
        (SELECT max(c.last_used_at) FROM credentials c WHERE c.account_id = a.id) AS last_login_at,
        (SELECT count(*) FROM sessions s WHERE s.account_id = a.id AND s.expires_at > \(now)) AS sessions
        """
    }
    /// One account's summary by its id ($1), sessions live at $2: a primary-key look-up.
    static let accountSummary = StoreStatement("SELECT \(accountSummaryColumns(now: "$2")) FROM accounts a WHERE a.id = $1")
    /// The search's conditions, on the account `a`: id after $1 (paging); matching text $3 (empty: any) as
    /// the whole id, or in the display name or a passkey's name ($4, a LIKE pattern, lower case); holding a
    /// passkey with AAGUID $5 when $6 = 1; when $10 = 1, last login (any passkey's) at or after $7 and
    /// before $8 (milliseconds; never signed in counts as 0). The same conditions however the accounts are
    /// found (`AdminAccountStore.search`): an index only chooses which accounts are looked at. A passkey's name
    /// is counted among the account's passkeys, not tested with EXISTS: PostgreSQL would turn an EXISTS
    /// under OR into a hash of every passkey matching the text (a million for a common one) built first.
    private static let searchConditions = """
        a.id > $1
          AND ($3 = '' OR a.id = $3 OR lower(a.display_name) LIKE $4 ESCAPE '\\'
               OR (SELECT count(*) FROM credentials c WHERE c.account_id = a.id AND lower(c.name) LIKE $4 ESCAPE '\\') > 0)
          AND ($6 = 0 OR EXISTS (SELECT 1 FROM credentials c WHERE c.account_id = a.id AND c.aaguid = $5))
          AND ($10 = 0 OR (SELECT coalesce(max(c.last_used_at), 0) >= $7 AND coalesce(max(c.last_used_at), 0) < $8
                           FROM credentials c WHERE c.account_id = a.id))
        """
    /// Every account in id order, checked one by one until $2 match ($9 is now, for counting live
    /// sessions): the way for no condition, or conditions so common that the first page is soon full.
    static let searchAccounts = StoreStatement("""
        SELECT \(accountSummaryColumns(now: "$9")) FROM accounts a
        WHERE \(searchConditions)
        ORDER BY a.id LIMIT $2
        """)
    /// The same among the accounts `candidates` (a query of their ids, from an index) names: only those
    /// are read, sorted, and the first $2 summarized. The candidates must be the outer loop, or a planner
    /// may walk every account in id order to save the sort (both did): SQLite's `CROSS JOIN` keeps its
    /// order, PostgreSQL's `LATERAL` with `OFFSET 0` (which it cannot flatten) is read once per candidate.
    private static func searchAmong(_ candidates: String, _ flavor: SQLFlavor) -> StoreStatement {
        let join = flavor == .sqlite
            ? "CROSS JOIN accounts a WHERE a.id = k.id AND"
            : "CROSS JOIN LATERAL (SELECT * FROM accounts a WHERE a.id = k.id OFFSET 0) a WHERE"
        return StoreStatement("""
            SELECT \(accountSummaryColumns(now: "$9")) FROM accounts a WHERE a.id IN (
                SELECT a.id FROM (\(candidates)) k \(join) \(searchConditions)
                ORDER BY a.id LIMIT $2)
            ORDER BY a.id
            """)
    }
    /// Accounts whose display name or a passkey's name holds the trigrams of FTS5 query $11 (SQLite's
    /// `AccountSearchIndex`), those whose name or passkey is not indexed yet (the pending rows, checked by
    /// the search's own `LIKE`), and the account whose id is $3.
    ///
    /// The pending rows are read through `ORDER BY row LIMIT pendingCap`. Not to cut them: this query runs
    /// only when the count before it found fewer than `AdminAccountStore.searchIndexLimit` rows in all, and the oldest
    /// come first, so only rows noted since that count, beyond four times as many, could be left out. The
    /// limit is there for SQLite's planner: a table without statistics (an empty one has none, even after
    /// `ANALYZE`) counts as a million rows, and for a million candidates it built a Bloom filter over every
    /// account first — 66 ms per search on a million accounts instead of 1.5.
    private static let sqliteTextCandidates = """
        SELECT a.id FROM account_name_trigrams t CROSS JOIN accounts a WHERE a.rowid = t.rowid AND account_name_trigrams MATCH $11
        UNION SELECT c.account_id FROM credential_name_trigrams t CROSS JOIN credentials c
            WHERE c.rowid = t.rowid AND credential_name_trigrams MATCH $11
        UNION SELECT a.id FROM (SELECT row FROM account_name_trigrams_pending ORDER BY row LIMIT \(pendingCap)) p
            CROSS JOIN accounts a WHERE a.rowid = p.row
        UNION SELECT c.account_id FROM (SELECT row FROM credential_name_trigrams_pending ORDER BY row LIMIT \(pendingCap)) p
            CROSS JOIN credentials c WHERE c.rowid = p.row
        UNION SELECT $3
        """
    private static let pendingCap = 4 * AdminAccountStore.searchIndexLimit
    /// The same on PostgreSQL: its pg_trgm GIN indexes serve the LIKE itself.
    private static let postgresTextCandidates = """
        SELECT id FROM accounts WHERE lower(display_name) LIKE $4 ESCAPE '\\'
        UNION SELECT account_id FROM credentials WHERE lower(name) LIKE $4 ESCAPE '\\'
        UNION SELECT $3
        """
    /// PostgreSQL, for a rare text: the ids `nameMatchesPostgres` found (a JSON array of strings, $11) and
    /// the account whose id is $3, so that the GIN indexes are read once per search, not a second time
    /// here (each reading costs about 7 ms on a million accounts: a rare name's trigrams include digits
    /// every name shares).
    private static let postgresFoundCandidates = """
        SELECT value AS id FROM json_array_elements_text($11::json)
        UNION SELECT $3
        """
    static let searchAccountsAmongFoundPostgres = searchAmong(postgresFoundCandidates, .postgres)
    static let searchAccountsByTextSQLite = searchAmong(sqliteTextCandidates, .sqlite)
    static let searchAccountsByTextPostgres = searchAmong(postgresTextCandidates, .postgres)
    private static let aaguidCandidates = "SELECT DISTINCT account_id AS id FROM credentials WHERE aaguid = $5"
    static let searchAccountsByAAGUID = [SQLFlavor.sqlite: searchAmong(aaguidCandidates, .sqlite), .postgres: searchAmong(aaguidCandidates, .postgres)]
    /// Only for a range that starts after the epoch: an account never signed in has no passkey in it.
    private static let lastLoginCandidates = "SELECT DISTINCT account_id AS id FROM credentials WHERE last_used_at >= $7 AND last_used_at < $8"
    static let searchAccountsByLastLogin = [
        SQLFlavor.sqlite: searchAmong(lastLoginCandidates, .sqlite), .postgres: searchAmong(lastLoginCandidates, .postgres),
    ]

    // How many rows an index would give, counted up to $2: the search takes the index whose count stays
    // under its limit, the smallest, or else reads the accounts in id order (`AdminAccountStore.search`).
    static let countNameTrigramsSQLite = StoreStatement("""
        SELECT (SELECT count(*) FROM (SELECT 1 FROM account_name_trigrams WHERE account_name_trigrams MATCH $1 LIMIT $2))
             + (SELECT count(*) FROM (SELECT 1 FROM credential_name_trigrams WHERE credential_name_trigrams MATCH $1 LIMIT $2))
             + (SELECT count(*) FROM (SELECT 1 FROM account_name_trigrams_pending LIMIT $2))
             + (SELECT count(*) FROM (SELECT 1 FROM credential_name_trigrams_pending LIMIT $2)) AS n
        """)
    /// Moves up to $1 pending rows of each table into its FTS5 table (`AccountSearchIndex`): the rows to
    /// move are those up to the bound the first statement reads, so a row noted meanwhile waits for the next
    /// round (on SQLite nothing is noted meanwhile: the batch is one transaction of the one writer).
    static let anyPendingNames = StoreStatement("""
        SELECT EXISTS (SELECT 1 FROM account_name_trigrams_pending) + EXISTS (SELECT 1 FROM credential_name_trigrams_pending) AS n
        """)
    static let pendingNameBounds = StoreStatement("""
        SELECT (SELECT max(row) FROM (SELECT row FROM account_name_trigrams_pending ORDER BY row LIMIT $1)) AS accounts,
               (SELECT max(row) FROM (SELECT row FROM credential_name_trigrams_pending ORDER BY row LIMIT $1)) AS credentials
        """)
    static let indexPendingAccountNames = [
        StoreStatement("""
            INSERT INTO account_name_trigrams (rowid, name)
            SELECT a.rowid, a.display_name FROM account_name_trigrams_pending p CROSS JOIN accounts a WHERE a.rowid = p.row AND p.row <= $1
            """),
        StoreStatement("DELETE FROM account_name_trigrams_pending WHERE row <= $1 RETURNING row"),
    ]
    static let indexPendingCredentialNames = [
        StoreStatement("""
            INSERT INTO credential_name_trigrams (rowid, name)
            SELECT c.rowid, c.name FROM credential_name_trigrams_pending p CROSS JOIN credentials c WHERE c.rowid = p.row AND p.row <= $1
            """),
        StoreStatement("DELETE FROM credential_name_trigrams_pending WHERE row <= $1 RETURNING row"),
    ]
    static let countNamesPostgres = StoreStatement("""
        SELECT (SELECT count(*) FROM (SELECT 1 FROM accounts WHERE lower(display_name) LIKE $1 ESCAPE '\\' LIMIT $2) x)
             + (SELECT count(*) FROM (SELECT 1 FROM credentials WHERE lower(name) LIKE $1 ESCAPE '\\' LIMIT $2) y) AS n
        """)
    /// PostgreSQL: up to $2 accounts whose display name holds the text ($1, a LIKE pattern; `kind` a) and
    /// up to $2 whose passkey's name does (`kind` c), through pg_trgm. When neither reaches $2, these are
    /// all the candidates (`searchAccountsAmongFoundPostgres`); otherwise the search counts and reads as
    /// before (`countNamesPostgres`, `searchAccountsByTextPostgres`).
    static let nameMatchesPostgres = StoreStatement("""
        SELECT 'a' AS kind, id FROM (SELECT id FROM accounts WHERE lower(display_name) LIKE $1 ESCAPE '\\' LIMIT $2) x
        UNION ALL SELECT 'c', account_id FROM (SELECT account_id FROM credentials WHERE lower(name) LIKE $1 ESCAPE '\\' LIMIT $2) y
        """)
    static let countAAGUID = StoreStatement("SELECT count(*) AS n FROM (SELECT 1 FROM credentials WHERE aaguid = $1 LIMIT $2) x")
    static let countLastUse = StoreStatement(
        "SELECT count(*) AS n FROM (SELECT 1 FROM credentials WHERE last_used_at >= $1 AND last_used_at < $3 LIMIT $2) x")
    static let setAccountDisabled = StoreStatement("UPDATE accounts SET disabled_at = $2, updated_at = $3 WHERE id = $1 RETURNING id")
    /// An account's live sessions, newest first: never the token's hash, only its first 8 bytes (the
    /// access tokens' `sid`), enough to tell sessions apart.
    static let accountSessions = StoreStatement("""
        SELECT substr(token_hash, 1, 8) AS sid, created_at, expires_at, credential_id, user_verified
        FROM sessions WHERE account_id = $1 AND expires_at > $2 ORDER BY created_at DESC
        """)
    static let deleteCredentialAllSessions = StoreStatement(
        "DELETE FROM sessions WHERE account_id = $2 AND credential_id = $1 RETURNING account_id")

    // MARK: Admin keys

    static let adminKeyColumns = "id, secret_hash, scope, name, created_at, created_by, last_used_at, revoked_at"
    static let insertAdminKey = StoreStatement("""
        INSERT INTO admin_keys (\(adminKeyColumns)) VALUES ($1, $2, $3, $4, $5, $6, NULL, NULL)
        """)
    static let adminKey = StoreStatement("SELECT \(adminKeyColumns) FROM admin_keys WHERE id = $1")
    static let adminKeys = StoreStatement("SELECT \(adminKeyColumns) FROM admin_keys ORDER BY created_at, id")
    static let revokeAdminKey = StoreStatement(
        "UPDATE admin_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id")
    /// Records a key's use, at most once a minute ($3: a minute before now), so that a busy script does
    /// not turn every read into a write.
    static let touchAdminKey = StoreStatement("""
        UPDATE admin_keys SET last_used_at = $2 WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $3) RETURNING id
        """)
}
