import Foundation
import LatchkeyDatabase
import SQLKit

/// Versioned schema migrations, run at start-up on SQLite and PostgreSQL alike. Each version is applied
/// once, in order, inside a transaction, and recorded in `schema_migrations`; a database written by an
/// older Latchkey opens in a newer one, which applies only the versions it lacks.
enum Migrations {
    /// One version: its number, one line saying what it changes (`latchkey migrate` prints it; the
    /// comment above each says why), and its statements for a database's flavor.
    struct Migration: Sendable {
        let version: Int
        let summary: String
        let statements: @Sendable (SQLFlavor) -> [String]
    }

    static let all: [Migration] = [
        Migration(
            version: 1,
            summary: "The first schema: accounts, their passkeys (credentials), pending ceremonies and sessions."
        ) { flavor in
            let bytes = flavor.bytesType
            return [
                """
                CREATE TABLE accounts (
                    id TEXT PRIMARY KEY,
                    user_handle \(bytes) NOT NULL UNIQUE,
                    display_name TEXT NOT NULL,
                    credo TEXT NOT NULL DEFAULT '',
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL)
                """,
                """
                CREATE TABLE credentials (
                    id \(bytes) PRIMARY KEY,
                    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    public_key \(bytes) NOT NULL,
                    algorithm INTEGER NOT NULL,
                    sign_count BIGINT NOT NULL,
                    transports TEXT NOT NULL,
                    aaguid \(bytes) NOT NULL,
                    attestation_format TEXT NOT NULL,
                    backup_eligible INTEGER NOT NULL,
                    backup_state INTEGER NOT NULL,
                    uv_initialized INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    last_used_at BIGINT)
                """,
                "CREATE INDEX credentials_by_account ON credentials (account_id)",
                """
                CREATE TABLE ceremonies (
                    challenge \(bytes) PRIMARY KEY,
                    kind TEXT NOT NULL,
                    account_id TEXT REFERENCES accounts(id) ON DELETE CASCADE,
                    user_handle \(bytes),
                    display_name TEXT,
                    expires_at BIGINT NOT NULL)
                """,
                "CREATE INDEX ceremonies_by_expiry ON ceremonies (expires_at)",
                """
                CREATE TABLE sessions (
                    token_hash \(bytes) PRIMARY KEY,
                    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL)
                """,
                "CREATE INDEX sessions_by_account ON sessions (account_id)",
            ]
        },
        // SQLite only: ceremonies and sessions are keyed by random bytes and looked up only by that key, so
        // a table clustered on it (WITHOUT ROWID) is one B-tree fewer to write per row. Ceremonies lose
        // their expiry index too: the table holds only the last few minutes' unfinished ceremonies, which
        // the housekeeping purge can scan, and every login would otherwise write that index twice. Four
        // pages fewer in the write-ahead log per login. PostgreSQL keeps version 1's tables.
        Migration(
            version: 2,
            summary: "SQLite only: ceremonies and sessions clustered on their random keys (WITHOUT ROWID), fewer pages written per login."
        ) { flavor in
            guard flavor == .sqlite else { return [] }
            return [
                """
                CREATE TABLE ceremonies_clustered (
                    challenge BLOB PRIMARY KEY,
                    kind TEXT NOT NULL,
                    account_id TEXT REFERENCES accounts(id) ON DELETE CASCADE,
                    user_handle BLOB,
                    display_name TEXT,
                    expires_at BIGINT NOT NULL) WITHOUT ROWID
                """,
                "INSERT INTO ceremonies_clustered SELECT challenge, kind, account_id, user_handle, display_name, expires_at FROM ceremonies",
                "DROP TABLE ceremonies",
                "ALTER TABLE ceremonies_clustered RENAME TO ceremonies",
                """
                CREATE TABLE sessions_clustered (
                    token_hash BLOB PRIMARY KEY,
                    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL) WITHOUT ROWID
                """,
                "INSERT INTO sessions_clustered SELECT token_hash, account_id, created_at, expires_at FROM sessions",
                "DROP TABLE sessions",
                "ALTER TABLE sessions_clustered RENAME TO sessions",
                "CREATE INDEX sessions_by_account ON sessions (account_id)",
            ]
        },
        // Security review, November 2026. Sessions remember the passkey that opened them, so removing a
        // passkey ends its sessions (finding 15); credentials remember whether their attestation chain was
        // validated to a configured anchor, so the page can say "not verified" (finding 16). SQLite gets
        // its ceremony expiry index back: the purge and the pending-ceremony cap run under the write lock,
        // and without the index each was a scan of every pending row (finding 10).
        Migration(
            version: 3,
            summary: "Sessions remember the passkey that opened them, passkeys whether their attestation was verified; SQLite's ceremony expiry index again."
        ) { flavor in
            [
                "ALTER TABLE sessions ADD COLUMN credential_id \(flavor.bytesType)",
                "CREATE INDEX sessions_by_credential ON sessions (credential_id)",
                "ALTER TABLE credentials ADD COLUMN attestation_verified INTEGER NOT NULL DEFAULT 0",
            ] + (flavor == .sqlite ? ["CREATE INDEX ceremonies_by_expiry ON ceremonies (expires_at)"] : [])
        },
        // Sealed challenges (issues 12 and 16): options store nothing, the ceremony travels inside its
        // challenge, sealed under a key kept here; a completed ceremony leaves its challenge's digest until
        // the challenge expires. Ceremonies pending at the upgrade are dropped: they are started again.
        Migration(
            version: 4,
            summary: "Sealed challenges: pending ceremonies dropped (people start again), used challenges kept until they expire, server keys in the database."
        ) { flavor in
            let bytes = flavor.bytesType
            return [
                "DROP TABLE ceremonies",
                """
                CREATE TABLE used_challenges (
                    digest \(bytes) PRIMARY KEY,
                    expires_at BIGINT NOT NULL)\(flavor == .sqlite ? " WITHOUT ROWID" : "")
                """,
                "CREATE INDEX used_challenges_by_expiry ON used_challenges (expires_at)",
                """
                CREATE TABLE server_keys (
                    name TEXT PRIMARY KEY,
                    secret \(bytes) NOT NULL,
                    created_at BIGINT NOT NULL)
                """,
            ]
        },
        // Several instances on one database (issue 13). `housekeeping` holds when a periodic task last ran
        // anywhere, so that of the instances that wake up each minute one does the work. PostgreSQL only:
        // `rate_limits`, the token buckets every instance draws from, UNLOGGED because a bucket is worth
        // nothing after a crash (at worst a client gets a fresh allowance) and a logged table would put a
        // write-ahead-log record, and its fsync, behind every API request.
        Migration(
            version: 5,
            summary: "Several instances on one database: when each periodic task last ran; on PostgreSQL, the shared rate-limit buckets."
        ) { flavor in
            [
                """
                CREATE TABLE housekeeping (
                    task TEXT PRIMARY KEY,
                    last_run BIGINT NOT NULL,
                    instance TEXT NOT NULL)
                """,
            ] + (flavor == .postgres ? [
                """
                CREATE UNLOGGED TABLE rate_limits (
                    client BYTEA PRIMARY KEY,
                    tokens DOUBLE PRECISION NOT NULL,
                    admitted BOOLEAN NOT NULL,
                    updated_at TIMESTAMPTZ NOT NULL)
                """,
                "CREATE INDEX rate_limits_by_update ON rate_limits (updated_at)",
            ] : [])
        },
        // Access tokens (issue 14): whether the login that opened a session verified the user, for the
        // tokens' `amr` claim. Sessions from before say no.
        Migration(
            version: 6,
            summary: "Sessions record whether their login verified the user (the access tokens' amr)."
        ) { _ in
            ["ALTER TABLE sessions ADD COLUMN user_verified INTEGER NOT NULL DEFAULT 0"]
        },
        // When a passkey's backup state last changed at a login (null: never).
        Migration(
            version: 7,
            summary: "Passkeys record when their backup state last changed at a login."
        ) { _ in
            ["ALTER TABLE credentials ADD COLUMN backup_state_changed_at BIGINT"]
        },
        // Fewer pages written per login (issue 16). A used challenge is keyed by its expiry first: a
        // challenge's expiry is sealed inside it, so the same challenge always comes with the same expiry
        // and (expiry, digest) is unique exactly when the digest is. New rows then land at the key's right
        // edge instead of a random page, and the purge by expiry reads the key itself, so the separate
        // expiry index goes. Sessions lose their index by passkey: the sessions a removed passkey opened
        // are found among its account's (one person's handful), through the index by account. PostgreSQL's
        // rate-limit buckets hand out several tokens at a time.
        Migration(
            version: 8,
            summary: "Used challenges keyed by expiry first, the sessions' index by passkey dropped (fewer pages per login); PostgreSQL leases rate-limit tokens."
        ) { flavor in
            [
                """
                CREATE TABLE used_challenges_v8 (
                    expires_at BIGINT NOT NULL,
                    digest \(flavor.bytesType) NOT NULL,
                    PRIMARY KEY (expires_at, digest))\(flavor == .sqlite ? " WITHOUT ROWID" : "")
                """,
                "INSERT INTO used_challenges_v8 (expires_at, digest) SELECT expires_at, digest FROM used_challenges",
                "DROP TABLE used_challenges",
                "ALTER TABLE used_challenges_v8 RENAME TO used_challenges",
                "DROP INDEX sessions_by_credential",
            ] + (flavor == .postgres ? [
                // How many tokens the last take got: instances lease several at once (`SharedRateLimit`).
                "ALTER TABLE rate_limits ADD COLUMN granted DOUBLE PRECISION NOT NULL DEFAULT 0",
            ] : [])
        },
        // The origin whose ceremony created a passkey: a web origin, or an Android app's
        // `android:apk-key-hash:…` (issue 35). Null for passkeys made before.
        Migration(
            version: 9,
            summary: "Passkeys record the origin whose ceremony created them (a web origin or an Android app)."
        ) { _ in
            ["ALTER TABLE credentials ADD COLUMN created_origin TEXT"]
        },
        // Operating Latchkey (issue 29). Accounts can be disabled (reversibly: null is enabled). The audit
        // trail, append-only, rows numbered in the order written; no foreign key to accounts, because an
        // account's history outlives it. Its one index serves a person's own history and an operator's
        // `--account` (newest first); the retention purge walks the numbers from the oldest, which are
        // also the oldest times, so it needs no index of its own and a login writes one index, not two.
        // Admin API keys, by the SHA-256 of their secret. The webhook outbox: one row per event and
        // endpoint still to deliver, written with the event.
        Migration(
            version: 10,
            summary: "Operating Latchkey: accounts can be disabled; the audit trail, admin API keys and the webhook outbox."
        ) { flavor in
            let bytes = flavor.bytesType
            let serial = flavor == .sqlite ? "INTEGER PRIMARY KEY" : "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY"
            return [
                "ALTER TABLE accounts ADD COLUMN disabled_at BIGINT",
                """
                CREATE TABLE audit_events (
                    id \(serial),
                    at BIGINT NOT NULL,
                    event TEXT NOT NULL,
                    account_id TEXT,
                    credential_id \(bytes),
                    actor TEXT NOT NULL,
                    client_address TEXT,
                    user_agent TEXT,
                    request_id TEXT,
                    detail TEXT NOT NULL)
                """,
                "CREATE INDEX audit_events_by_account ON audit_events (account_id, id)",
                """
                CREATE TABLE admin_keys (
                    id TEXT PRIMARY KEY,
                    secret_hash \(bytes) NOT NULL UNIQUE,
                    scope TEXT NOT NULL,
                    name TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    created_by TEXT NOT NULL,
                    last_used_at BIGINT,
                    revoked_at BIGINT)
                """,
                """
                CREATE TABLE webhook_outbox (
                    audit_id BIGINT NOT NULL,
                    endpoint TEXT NOT NULL,
                    attempts INTEGER NOT NULL,
                    next_attempt_at BIGINT NOT NULL,
                    last_error TEXT,
                    PRIMARY KEY (audit_id, endpoint))
                """,
                "CREATE INDEX webhook_outbox_by_due ON webhook_outbox (next_attempt_at)",
            ]
        },
        // Recovery (issue 30). Sessions say how they were made: `passkey`, or `recovery` — a restricted
        // session that can only add a passkey, tied to the grant it came from. Recovery grants, issued by
        // an operator: an id (the code's first group, for the look-up and the attempt count) and the
        // SHA-256 of the code's secret part, never the code.
        Migration(
            version: 11,
            summary: "Recovery: sessions record how they were made; recovery grants and device requests (hashes only)."
        ) { flavor in
            [
                "ALTER TABLE sessions ADD COLUMN method TEXT NOT NULL DEFAULT 'passkey'",
                "ALTER TABLE sessions ADD COLUMN recovery_grant TEXT",
                """
                CREATE TABLE recovery_grants (
                    id TEXT PRIMARY KEY,
                    secret_hash \(flavor.bytesType) NOT NULL,
                    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    purpose TEXT NOT NULL,
                    issued_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    issued_by TEXT NOT NULL,
                    exchanged_at BIGINT,
                    used_at BIGINT,
                    revoked_at BIGINT,
                    failed_attempts INTEGER NOT NULL DEFAULT 0)
                """,
                "CREATE INDEX recovery_grants_by_account ON recovery_grants (account_id)",
                // A new device asking a signed-in one to let it in: found by its short code's hash, polled
                // with its secret (the hash of each only), approved by the account's owner with a fresh
                // passkey assertion, purged when expired.
                """
                CREATE TABLE device_requests (
                    id TEXT PRIMARY KEY,
                    code_hash \(flavor.bytesType) NOT NULL,
                    secret_hash \(flavor.bytesType) NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    user_agent TEXT,
                    client_address TEXT,
                    account_id TEXT REFERENCES accounts(id) ON DELETE CASCADE,
                    approved_at BIGINT,
                    denied_at BIGINT,
                    session_issued_at BIGINT,
                    completed_at BIGINT)
                """,
                "CREATE INDEX device_requests_by_code ON device_requests (code_hash)",
                "CREATE INDEX device_requests_by_expiry ON device_requests (expires_at)",
            ]
        },
        // OpenID Connect (issue 31). What apps may know about a person: a unique username (lower case,
        // so one index keeps it unique whatever the case typed), an email and whether it was verified, and
        // groups (space-separated names). The clients an operator registered (a confidential one's secret
        // as its SHA-256 only; lists space-separated: URIs cannot hold a space), the consents people gave
        // them, and the grants: one per authorization, the family its code, refresh tokens and access tokens
        // belong to, so that a replayed code or refresh token can end all of it at once (RFC 9700 §4.14).
        Migration(
            version: 12,
            summary: "OpenID Connect: usernames, emails and groups on accounts; clients, consents, grants, codes and refresh tokens (hashes only)."
        ) { flavor in
            let bytes = flavor.bytesType
            return [
                "ALTER TABLE accounts ADD COLUMN username TEXT",
                "CREATE UNIQUE INDEX accounts_by_username ON accounts (username)",
                "ALTER TABLE accounts ADD COLUMN email TEXT",
                "ALTER TABLE accounts ADD COLUMN email_verified INTEGER NOT NULL DEFAULT 0",
                "ALTER TABLE accounts ADD COLUMN group_names TEXT NOT NULL DEFAULT ''",
                """
                CREATE TABLE oidc_clients (
                    id TEXT PRIMARY KEY,
                    name TEXT NOT NULL,
                    secret_hash \(bytes),
                    redirect_uris TEXT NOT NULL,
                    post_logout_uris TEXT NOT NULL DEFAULT '',
                    id_token_alg TEXT NOT NULL DEFAULT 'ES256',
                    first_party INTEGER NOT NULL DEFAULT 0,
                    scopes TEXT NOT NULL,
                    allowed_groups TEXT NOT NULL DEFAULT '',
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL,
                    created_by TEXT NOT NULL)
                """,
                """
                CREATE TABLE oidc_consents (
                    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    client_id TEXT NOT NULL REFERENCES oidc_clients(id) ON DELETE CASCADE,
                    scopes TEXT NOT NULL,
                    granted_at BIGINT NOT NULL,
                    PRIMARY KEY (account_id, client_id))
                """,
                """
                CREATE TABLE oidc_grants (
                    id TEXT PRIMARY KEY,
                    client_id TEXT NOT NULL REFERENCES oidc_clients(id) ON DELETE CASCADE,
                    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    session_hash \(bytes),
                    scope TEXT NOT NULL,
                    nonce TEXT,
                    auth_time BIGINT NOT NULL,
                    amr TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    revoked_at BIGINT)
                """,
                "CREATE INDEX oidc_grants_by_account ON oidc_grants (account_id)",
                "CREATE INDEX oidc_grants_by_client ON oidc_grants (client_id)",
                "CREATE INDEX oidc_grants_by_expiry ON oidc_grants (expires_at)",
                """
                CREATE TABLE oidc_codes (
                    code_hash \(bytes) PRIMARY KEY,
                    grant_id TEXT NOT NULL REFERENCES oidc_grants(id) ON DELETE CASCADE,
                    redirect_uri TEXT NOT NULL,
                    code_challenge TEXT,
                    expires_at BIGINT NOT NULL,
                    used_at BIGINT)
                """,
                "CREATE INDEX oidc_codes_by_grant ON oidc_codes (grant_id)",
                """
                CREATE TABLE oidc_refresh_tokens (
                    token_hash \(bytes) PRIMARY KEY,
                    grant_id TEXT NOT NULL REFERENCES oidc_grants(id) ON DELETE CASCADE,
                    issued_at BIGINT NOT NULL,
                    used_at BIGINT)
                """,
                "CREATE INDEX oidc_refresh_tokens_by_grant ON oidc_refresh_tokens (grant_id)",
            ]
        },
        // Email for recovery (issue 30, item 4). A person's address is confirmed by a link whose token is
        // stored as its SHA-256 only, bound to the account and the address, single use, a day at most (a new
        // one replaces the old). Every mail sent is logged by the address's SHA-256 and the account, so that
        // the per-address and per-account limits hold across instances; the log is purged after a day.
        // Accounts are found by a verified address whatever its case (`lower(email)`).
        Migration(
            version: 13,
            summary: "Email for recovery: address verification tokens (hashes only), a log of mails sent for their limits, accounts by email."
        ) { flavor in
            let bytes = flavor.bytesType
            return [
                """
                CREATE TABLE email_tokens (
                    token_hash \(bytes) PRIMARY KEY,
                    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    email TEXT NOT NULL,
                    purpose TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    used_at BIGINT)
                """,
                "CREATE INDEX email_tokens_by_account ON email_tokens (account_id)",
                """
                CREATE TABLE mail_log (
                    id \(bytes) PRIMARY KEY,
                    address_hash \(bytes) NOT NULL,
                    account_id TEXT REFERENCES accounts(id) ON DELETE CASCADE,
                    purpose TEXT NOT NULL,
                    sent_at BIGINT NOT NULL)
                """,
                "CREATE INDEX mail_log_by_address ON mail_log (address_hash, sent_at)",
                "CREATE INDEX mail_log_by_account ON mail_log (account_id, sent_at)",
                "CREATE INDEX accounts_by_email ON accounts (lower(email))",
            ]
        },
        // What the client said about a new passkey (issue 32): whether it is discoverable (credProps' `rk`)
        // and whether it can evaluate a PRF (prf's `enabled`), each null when the client did not say — every
        // passkey made before.
        Migration(
            version: 14,
            summary: "Passkeys record whether they are discoverable (credProps) and can evaluate a PRF (prf), when the client said."
        ) { _ in
            [
                "ALTER TABLE credentials ADD COLUMN discoverable INTEGER",
                "ALTER TABLE credentials ADD COLUMN prf_enabled INTEGER",
            ]
        },
        // FIDO metadata (MDS3; issue 32, item 2): the BLOB last loaded (one row: its serial number, next
        // update and legal header), and its FIDO2 entries by AAGUID — the model's name, its attestation roots
        // (DER, one after another), its latest status and that status's date, its icon (a data URL). A newer
        // BLOB replaces every entry in one transaction. Version 15: 14 is another change's number.
        Migration(
            version: 15,
            summary: "FIDO metadata: the loaded BLOB's serial number and next update, and its authenticator models by AAGUID."
        ) { flavor in
            let bytes = flavor.bytesType
            return [
                """
                CREATE TABLE metadata_blob (
                    id INTEGER PRIMARY KEY,
                    serial BIGINT NOT NULL,
                    next_update TEXT NOT NULL,
                    legal_header TEXT NOT NULL,
                    entries INTEGER NOT NULL,
                    loaded_at BIGINT NOT NULL)
                """,
                """
                CREATE TABLE metadata_entries (
                    aaguid \(bytes) PRIMARY KEY,
                    description TEXT NOT NULL,
                    root_certificates \(bytes) NOT NULL,
                    status TEXT,
                    status_date TEXT,
                    icon TEXT)
                """,
            ]
        },
        // The admin API's account search on a million accounts (issue 34, item 6): a text search read every
        // account and every passkey (seconds). Text is found through trigrams: on SQLite two contentless FTS5
        // tables with the trigram tokenizer (SQLite 3.34 or newer), keyed by the rowid of the account or the
        // passkey whose name they hold and kept by triggers — only a change of a name writes them, never a
        // login; on PostgreSQL `pg_trgm` GIN indexes on the same `lower(…)` the search compares. pg_trgm is a
        // trusted extension (PostgreSQL 13 and newer: the database's owner may create it), but a server
        // without the contrib modules has none: the migration then goes on without those indexes and the
        // text search reads every row as before (`docs/OPERATIONS.md`). Passkeys by AAGUID and by last use,
        // for the AAGUID and last-login filters. Version 17: 16 is another change's number.
        Migration(
            version: 17,
            summary: "Admin account search through indexes: name trigrams (SQLite FTS5, PostgreSQL pg_trgm when available), passkeys by AAGUID and by last use."
        ) { flavor in
            let common = [
                // With the account's id: the accounts a filter names are read from the index alone.
                "CREATE INDEX credentials_by_aaguid ON credentials (aaguid, account_id)",
                "CREATE INDEX credentials_by_last_use ON credentials (last_used_at, account_id)",
            ]
            guard flavor == .sqlite else {
                return common + [
                    """
                    DO $$ BEGIN
                        CREATE EXTENSION IF NOT EXISTS pg_trgm;
                    EXCEPTION WHEN OTHERS THEN
                        RAISE WARNING 'pg_trgm is not available (%): the admin account search reads every row', SQLERRM;
                    END $$
                    """,
                    """
                    DO $$ DECLARE trgm name; BEGIN
                        -- The operator class by its schema's name: the extension may live outside the search path.
                        SELECT n.nspname INTO trgm FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'pg_trgm';
                        IF trgm IS NOT NULL THEN
                            EXECUTE format('CREATE INDEX accounts_by_name_trigrams ON accounts USING gin (lower(display_name) %I.gin_trgm_ops)', trgm);
                            EXECUTE format('CREATE INDEX credentials_by_name_trigrams ON credentials USING gin (lower(name) %I.gin_trgm_ops)', trgm);
                        END IF;
                    EXCEPTION WHEN OTHERS THEN
                        RAISE WARNING 'no trigram indexes (%): the admin account search reads every row', SQLERRM;
                    END $$
                    """,
                    // Statistics of the indexed expressions (`lower(display_name)`, `lower(name)`): PostgreSQL
                    // gathers them only at an ANALYZE, and without them takes every text for a rare one.
                    "ANALYZE accounts",
                    "ANALYZE credentials",
                ]
            }
            return common + AccountSearchIndex.sqliteSchema
        },
        // A registration wrote about 15 pages of its 40 into the two FTS5 tables (a new segment per commit):
        // new rows are now noted in a pending table and indexed a second later in batches
        // (`AccountSearchIndex`, `SearchIndexing`; issue 34). PostgreSQL's GIN indexes batch their own
        // insertions (`fastupdate`): nothing changes there.
        Migration(
            version: 18,
            summary: "SQLite: new accounts and passkeys reach the admin search's trigram index in batches, a second after they are written (found by the search meanwhile)."
        ) { flavor in
            flavor == .sqlite ? AccountSearchIndex.sqliteDeferredSchema : []
        },
        // PostgreSQL: the login's writes as a procedure that commits them, so that the login's last round
        // trip proves its commit and no empty query waits for it (`FinishLoginProcedure`; issue 34).
        Migration(
            version: 19,
            summary: "PostgreSQL: a login's writes commit inside one procedure call (one round trip less per login)."
        ) { flavor in
            flavor == .postgres ? [FinishLoginProcedure.create] : []
        },
        // The fourth security review (issue 42). Device requests note who asked (an IPv4 address or an
        // IPv6 /64, as the rate limiter counts them), so that one requester holds a few live requests, not
        // the whole table (S4-3), and may name the account they are for (S4-12). Grants are read per account and client (the apps list aggregates them
        // there, and a new authorization replaces the same session's pending one: S4-4). Every username an
        // account ever held stays its own (S4-5: a released name taken by another account signed that
        // account in as the first at every app keyed on `preferred_username`).
        Migration(
            version: 20,
            summary: "Device requests bounded per requester, OpenID Connect grants indexed per account and client, usernames never passed to another account."
        ) { _ in
            [
                "ALTER TABLE device_requests ADD COLUMN requester TEXT",
                "ALTER TABLE device_requests ADD COLUMN for_username TEXT",
                "CREATE INDEX device_requests_by_requester ON device_requests (requester, expires_at)",
                "CREATE INDEX oidc_grants_by_account_client ON oidc_grants (account_id, client_id, expires_at)",
                """
                CREATE TABLE usernames (
                    username TEXT PRIMARY KEY,
                    account_id TEXT NOT NULL,
                    first_used_at BIGINT NOT NULL)
                """,
                SQL.backfillUsernames,
            ]
        },
        // Who may have an account (issue 43). Invitations, made by an operator: an id (the code's first group,
        // as a recovery grant's) and the SHA-256 of the code's secret, never the code; the profile the account
        // gets, how many accounts it may make, and the account it is for when an operator made that account
        // too. Each use is a row: the account it made and the restricted session's tie to it, used up by the
        // account's first passkey. An invitation someone asked for by mail (`--signup-domain`) notes who asked
        // (an address or an IPv6 /64, as the rate limiter counts them), so that one requester holds a few.
        Migration(
            version: 21,
            summary: "Invitations (hashes only) and their uses: the account each made, and its first passkey."
        ) { flavor in
            [
                """
                CREATE TABLE invitations (
                    id TEXT PRIMARY KEY,
                    secret_hash \(flavor.bytesType) NOT NULL,
                    account_id TEXT REFERENCES accounts(id) ON DELETE CASCADE,
                    username TEXT,
                    email TEXT,
                    group_names TEXT NOT NULL DEFAULT '',
                    max_uses INTEGER NOT NULL,
                    uses INTEGER NOT NULL DEFAULT 0,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    created_by TEXT NOT NULL,
                    mailed_at BIGINT,
                    revoked_at BIGINT,
                    failed_attempts INTEGER NOT NULL DEFAULT 0,
                    requester TEXT)
                """,
                "CREATE INDEX invitations_by_created ON invitations (created_at)",
                "CREATE INDEX invitations_by_requester ON invitations (requester, expires_at)",
                """
                CREATE TABLE invitation_uses (
                    id TEXT PRIMARY KEY,
                    invitation_id TEXT NOT NULL REFERENCES invitations(id) ON DELETE CASCADE,
                    account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    used_at BIGINT NOT NULL,
                    completed_at BIGINT)
                """,
                "CREATE INDEX invitation_uses_by_invitation ON invitation_uses (invitation_id)",
                "CREATE INDEX invitation_uses_by_account ON invitation_uses (account_id)",
            ]
        },
        // OpenID Connect for machines and devices (issue 49). A client says which grants it may use
        // (`authorization_code`, `client_credentials`, the device flow's URN), which API scopes an operator
        // defined for it, and the public keys (a JWKS) it signs its `private_key_jwt` assertions with — each
        // assertion's `jti` is kept (as SHA-256) until it expires, so that it is used once; `credentials_generation` is what its client-credentials tokens carry as `sid`, drawn
        // anew when its secret changes (or a client revokes one), so every such token ends with it. Device
        // authorizations (RFC 8628): the device code and the user code as SHA-256 only, who asked (an address
        // or an IPv6 /64, as the rate limiter counts them) so one requester holds a few, the polling interval
        // the client must keep, and once the person decided, their account and the grant their approval made.
        Migration(
            version: 23,
            summary: "OpenID Connect clients' grant types, API scopes, client-credentials generation and JWKS; used client assertions and device authorizations (hashes only)."
        ) { flavor in
            let bytes = flavor.bytesType
            return [
                "ALTER TABLE oidc_clients ADD COLUMN grant_types TEXT NOT NULL DEFAULT 'authorization_code'",
                "ALTER TABLE oidc_clients ADD COLUMN api_scopes TEXT NOT NULL DEFAULT ''",
                "ALTER TABLE oidc_clients ADD COLUMN credentials_generation TEXT NOT NULL DEFAULT ''",
                "ALTER TABLE oidc_clients ADD COLUMN jwks TEXT",
                """
                CREATE TABLE oidc_client_assertions (
                    client_id TEXT NOT NULL REFERENCES oidc_clients(id) ON DELETE CASCADE,
                    jti_hash \(bytes) NOT NULL,
                    expires_at BIGINT NOT NULL,
                    PRIMARY KEY (client_id, jti_hash))
                """,
                "CREATE INDEX oidc_client_assertions_by_expiry ON oidc_client_assertions (expires_at)",
                """
                CREATE TABLE oidc_device_codes (
                    device_hash \(bytes) PRIMARY KEY,
                    user_hash \(bytes) NOT NULL UNIQUE,
                    client_id TEXT NOT NULL REFERENCES oidc_clients(id) ON DELETE CASCADE,
                    scope TEXT NOT NULL,
                    requester TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    interval_seconds INTEGER NOT NULL,
                    polled_at BIGINT,
                    account_id TEXT REFERENCES accounts(id) ON DELETE CASCADE,
                    grant_id TEXT REFERENCES oidc_grants(id) ON DELETE CASCADE,
                    decided_at BIGINT,
                    approved INTEGER)
                """,
                "CREATE INDEX oidc_device_codes_by_requester ON oidc_device_codes (requester, expires_at)",
                "CREATE INDEX oidc_device_codes_by_expiry ON oidc_device_codes (expires_at)",
            ]
        },
    ]

    /// The newest schema version this build knows.
    static var latestVersion: Int { all.map(\.version).max() ?? 0 }

    /// Applies every version up to `last` (all by default; tests stop early to build an older database).
    static func run(on connections: DatabaseConnections, through last: Int = latestVersion) async throws {
        // Instances that start at the same moment all get here. On PostgreSQL everything below runs under
        // one advisory lock, taken per transaction: even `CREATE TABLE IF NOT EXISTS` is not safe to race
        // there (two creators can both pass the check and one fails on the catalogue's unique index).
        // SQLite's `BEGIN IMMEDIATE` serializes the writers itself.
        try await connections.transaction { database in
            try await lock(database, flavor: connections.flavor)
            try await database.raw("CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, applied_at BIGINT NOT NULL)").run()
        }
        // A database a newer Latchkey migrated has tables this one does not know how to keep right.
        let current = try await connections.withConnection { try await version(of: $0) }
        guard current <= latestVersion else { throw NewerSchema(found: current, known: latestVersion) }
        for migration in all where migration.version <= last {
            try await connections.transaction { database in
                // Checked inside the locked transaction, so instances starting together apply each version once.
                try await lock(database, flavor: connections.flavor)
                let applied = try await database.raw("SELECT version FROM schema_migrations WHERE version = \(bind: migration.version)").first()
                guard applied == nil else { return }
                for statement in migration.statements(connections.flavor) {
                    try await database.raw(SQLQueryString(statement)).run()
                }
                try await database.raw(
                    "INSERT INTO schema_migrations (version, applied_at) VALUES (\(bind: migration.version), \(bind: Timestamp.now()))").run()
            }
        }
    }

    /// The newest schema version applied to the database (0 before any).
    static func version(of database: any SQLDatabase) async throws -> Int {
        try await database.raw("SELECT max(version) AS v FROM schema_migrations").first()?.decode(column: "v", as: Int?.self) ?? 0
    }

    /// The same, reading only: 0 for a database without `schema_migrations` (which `run` would create),
    /// for `latchkey migrate --dry-run`.
    static func versionReadingOnly(of database: any SQLDatabase, flavor: SQLFlavor) async throws -> Int {
        let exists: SQLQueryString = flavor == .sqlite
            ? "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
            : "SELECT count(*) AS n FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = 'schema_migrations'"
        let tables = try await database.raw(exists).first()?.decode(column: "n", as: Int.self) ?? 0
        guard tables > 0 else { return 0 }
        return try await version(of: database)
    }

    /// The versions a database at schema version `current` lacks, in the order `run` applies them.
    static func pending(after current: Int) -> [Migration] {
        all.filter { $0.version > current }.sorted { $0.version < $1.version }
    }

    /// The database was migrated by a newer Latchkey than this one.
    struct NewerSchema: Error, Sendable {
        let found: Int
        let known: Int

        /// What `latchkey serve` (and `latchkey migrate`, `latchkey admin`) say about it: one sentence.
        func sentence(database: DatabaseLocation) -> String {
            """
            the database \(database) was migrated by a newer Latchkey (schema version \(found); this one knows up to \(known)): \
            run that version or a newer one, or restore the backup taken before the upgrade
            """
        }
    }

    /// Waits for the migration lock (PostgreSQL; released when the transaction ends).
    private static func lock(_ database: any SQLDatabase, flavor: SQLFlavor) async throws {
        guard flavor == .postgres else { return }
        try await database.raw("SELECT pg_advisory_xact_lock(\(bind: Int64(0x4c61_7463))) AS locked").run()
    }
}
