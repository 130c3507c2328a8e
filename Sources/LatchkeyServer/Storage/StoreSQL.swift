import LatchkeyDatabase

/// Every statement the store runs, each parsed once. The SQL is the same on SQLite and PostgreSQL.
enum SQL {
    // MARK: Challenges and keys

    static let useChallenge = StoreStatement("""
        INSERT INTO used_challenges (digest, expires_at) VALUES ($1, $2) ON CONFLICT (expires_at, digest) DO NOTHING RETURNING digest
        """)
    /// Whether a challenge has completed a ceremony (PostgreSQL's login asks when a response fails).
    static let isChallengeUsed = StoreStatement("SELECT digest FROM used_challenges WHERE expires_at = $2 AND digest = $1")
    static let purgeUsedChallenges = StoreStatement("DELETE FROM used_challenges WHERE expires_at <= $1")
    static let countUsedChallenges = StoreStatement("SELECT count(*) AS n FROM used_challenges")
    static let insertServerKey = StoreStatement("""
        INSERT INTO server_keys (name, secret, created_at) VALUES ($1, $2, $3) ON CONFLICT (name) DO NOTHING
        """)
    static let serverKey = StoreStatement("SELECT secret FROM server_keys WHERE name = $1")
    static let replaceServerKey = StoreStatement("UPDATE server_keys SET secret = $2 WHERE name = $1 AND secret = $3")
    static let deleteAllServerKeys = StoreStatement("DELETE FROM server_keys RETURNING name")
    static let deleteServerKeys = StoreStatement("DELETE FROM server_keys WHERE name LIKE $1 AND name < $2")

    // MARK: Accounts

    static let insertAccount = StoreStatement("""
        INSERT INTO accounts (id, user_handle, display_name, credo, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
        """)
    static let accountColumns = "id, user_handle, display_name, credo, created_at, updated_at, disabled_at"
    static let account = StoreStatement("SELECT \(accountColumns) FROM accounts WHERE id = $1")
    /// A write to the account's row that changes nothing: in PostgreSQL it holds the row's lock until the
    /// transaction ends (SQLite has no `FOR UPDATE`; this works on both).
    static let lockAccount = StoreStatement("UPDATE accounts SET updated_at = updated_at WHERE id = $1")
    static let updateAccount = StoreStatement("UPDATE accounts SET display_name = $1, credo = $2, updated_at = $3 WHERE id = $4")
    /// An account's rows, children first (foreign keys cascade too; these make it explicit for a database
    /// opened without them).
    static let deleteAccount = [
        StoreStatement("DELETE FROM sessions WHERE account_id = $1 RETURNING account_id"),
        StoreStatement("DELETE FROM credentials WHERE account_id = $1 RETURNING account_id"),
        StoreStatement("DELETE FROM accounts WHERE id = $1 RETURNING id"),
    ]

    // MARK: Credentials

    static let credentialColumns = """
        id, account_id, public_key, algorithm, sign_count, transports, aaguid, attestation_format, backup_eligible, \
        backup_state, uv_initialized, name, created_at, last_used_at, attestation_verified, backup_state_changed_at, created_origin, \
        discoverable, prf_enabled
        """

    static let insertCredential = StoreStatement("""
        INSERT INTO credentials (\(credentialColumns)) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
        ON CONFLICT (id) DO NOTHING RETURNING id
        """)
    static let credential = StoreStatement("SELECT \(credentialColumns) FROM credentials WHERE id = $1")
    static let accountCredentials = StoreStatement(
        "SELECT \(credentialColumns) FROM credentials WHERE account_id = $1 ORDER BY created_at, id")
    /// Every credential, in id order after $1, at most $2 (an operator's listing).
    static let credentialsAfter = StoreStatement("SELECT \(credentialColumns) FROM credentials WHERE id > $1 ORDER BY id LIMIT $2")
    static let accountCredentialIds = StoreStatement("SELECT id FROM credentials WHERE account_id = $1")
    static let countAccountCredentials = StoreStatement("SELECT count(*) AS n FROM credentials WHERE account_id = $1")
    /// The login's look-up: a credential and its account in one query, the account's columns prefixed `a_`.
    static let credentialWithAccount = StoreStatement("""
        SELECT \(credentialColumns.split(separator: ",").map { "c." + $0.trimmingCharacters(in: .whitespacesAndNewlines) }.joined(separator: ", ")),
               a.user_handle AS a_user_handle, a.display_name AS a_display_name, a.credo AS a_credo,
               a.created_at AS a_created_at, a.updated_at AS a_updated_at, a.disabled_at AS a_disabled_at
        FROM credentials c JOIN accounts a ON a.id = c.account_id WHERE c.id = $1
        """, preparedOnPostgres: CredentialWithAccountOnPostgres.self)
    /// A login's update: the counter moves only from the value the verification compared against ($6).
    /// A change of the backup state is dated (the right-hand sides read the row as it was).
    static let recordLogin = StoreStatement("""
        UPDATE credentials SET sign_count = $1, backup_state = $2, uv_initialized = CASE WHEN $3 = 1 THEN 1 ELSE uv_initialized END,
            last_used_at = $4, backup_state_changed_at = CASE WHEN backup_state <> $2 THEN $4 ELSE backup_state_changed_at END
        WHERE id = $5 AND sign_count = $6
        RETURNING id
        """)
    /// A whole login's writes as one PostgreSQL statement (one round trip, its own committed transaction),
    /// after the credential was read and the assertion verified: the challenge is marked used ($1, $2);
    /// only if that mark is new does the counter move, from the value the verification saw ($8); only if
    /// it moved is the session ($9, expiring $10) stored. A racing finish of the same challenge waits on
    /// the mark's key and then finds it taken, so of any number exactly one moves on. `used` is 0 when the
    /// challenge had completed a login already; `stored` is 0 when the counter had moved. With the
    /// session go the login's audit events — kind and detail of each in the JSON array $15, the rest
    /// shared: actor $11, client address $12, user agent $13, request id $14 — and their webhook outbox
    /// rows, one per endpoint id in the comma-separated $16 (empty: no webhooks).
    /// The statement is the body of a procedure that commits it (`FinishLoginProcedure`, migration 19):
    /// its answer comes after the commit, so no round trip waits for it (`StatementEffect.commits`).
    /// (PostgreSQL only: SQLite has no writes inside WITH, and its transaction costs no round trips.)
    static let finishLoginAtOnce = StoreStatement("""
        CALL \(FinishLoginProcedure.name)($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, NULL, NULL)
        """, preparedOnPostgres: FinishLoginOnPostgres.self)
    static let renameCredential = StoreStatement(
        "UPDATE credentials SET name = $1 WHERE id = $2 AND account_id = $3 RETURNING \(credentialColumns)")
    static let deleteCredential = StoreStatement("DELETE FROM credentials WHERE id = $1 AND account_id = $2")

    // MARK: Sessions

    static let insertSession = StoreStatement(
        "INSERT INTO sessions (token_hash, account_id, created_at, expires_at, credential_id, user_verified) VALUES ($1, $2, $3, $4, $5, $6)")
    private static let sessionDetailColumns = """
        SELECT s.token_hash, s.account_id, s.created_at, s.expires_at, s.user_verified, s.method, c.backup_eligible
        FROM sessions s JOIN accounts a ON a.id = s.account_id AND a.disabled_at IS NULL
        LEFT JOIN credentials c ON c.id = s.credential_id
        """
    /// A live session and the passkey that opened it, by the token's hash.
    static let sessionDetails = StoreStatement("\(sessionDetailColumns) WHERE s.token_hash = $1 AND s.expires_at > $2")
    /// The same by the first bytes of the hash (an access token's `sid`): a range of the primary key,
    /// $1 ≤ hash < $2, so no index beyond the key is needed.
    static let sessionDetailsByPrefix = StoreStatement(
        "\(sessionDetailColumns) WHERE s.token_hash >= $1 AND s.token_hash < $2 AND s.expires_at > $3")
    /// The sessions a removed passkey opened, but the caller's own ($2), among its account's ($3): found
    /// through the index by account, there being none by passkey.
    static let deleteCredentialSessions = StoreStatement(
        "DELETE FROM sessions WHERE account_id = $3 AND credential_id = $1 AND token_hash <> $2")
    static let deleteAccountSessions = StoreStatement("DELETE FROM sessions WHERE account_id = $1 RETURNING account_id")
    /// The account of a live *full* session: what the compatibility APIs (Hanko's cookie, PassKeysDemo's
    /// token) authenticate with. A restricted session (recovery, device) and a disabled account are not
    /// one: the compatibility routes have no `RequestAuthentication` to refuse them (review 4, S4-11).
    static let sessionAccount = StoreStatement("""
        SELECT s.account_id FROM sessions s JOIN accounts a ON a.id = s.account_id
        WHERE s.token_hash = $1 AND s.expires_at > $2 AND s.method = 'passkey' AND a.disabled_at IS NULL
        """)
    /// The account of a live session, in one read: what authenticates a request to Latchkey's own routes.
    static let sessionAccountRecord = StoreStatement("""
        SELECT a.id, a.user_handle, a.display_name, a.credo, a.created_at, a.updated_at, a.disabled_at, s.method, s.recovery_grant
        FROM sessions s JOIN accounts a ON a.id = s.account_id
        WHERE s.token_hash = $1 AND s.expires_at > $2 AND a.disabled_at IS NULL
        """)
    static let deleteSession = StoreStatement("DELETE FROM sessions WHERE token_hash = $1 RETURNING account_id")
    static let purgeSessions = StoreStatement("DELETE FROM sessions WHERE expires_at <= $1")

    // MARK: State the instances share

    /// Claims a periodic task for this run: a row back means this instance does it; none means another
    /// instance ran it since $4 (the row's lock makes racing claims wait, then find the fresh time).
    static let claimTask = StoreStatement("""
        INSERT INTO housekeeping (task, last_run, instance) VALUES ($1, $2, $3)
        ON CONFLICT (task) DO UPDATE SET last_run = excluded.last_run, instance = excluded.instance
        WHERE housekeeping.last_run <= $4
        RETURNING task
        """)
    static let lastRun = StoreStatement("SELECT instance, last_run FROM housekeeping WHERE task = $1")
}
