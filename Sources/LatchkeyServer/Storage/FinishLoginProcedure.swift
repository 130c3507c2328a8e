/// The login's writes on PostgreSQL as a procedure that commits them itself (migration 19), called by
/// `SQL.finishLoginAtOnce`.
///
/// Why a procedure: the writes used to be one statement in an implicit transaction, which PostgreSQL
/// commits only at the extended protocol's `Sync`, after the statement's `CommandComplete` — so a login
/// had to wait one more round trip for that commit (`PostgresCommitWait`; the crash test lost an
/// acknowledged login without it). A procedure called at the top level may `COMMIT` inside: its
/// answer — the row of its `INOUT` parameters — is made only after the commit has ended (and reached the
/// disk as `synchronous_commit` says), and a commit that fails fails the `CALL`. So the login is two round
/// trips again (its look-up and this), and its last one proves the commit. The tail transaction a
/// procedure opens after its `COMMIT` is empty and ends at `Sync` with nothing to lose.
///
/// The body is the statement as it was (its parameters are the procedure's, `$1`…`$16`; the CTEs are
/// renamed `marked` and `opened` so as not to shadow the `INOUT` parameters `used` and `stored`, which
/// are the columns the `CALL` answers with). A later change of the login's writes replaces the
/// procedure in a migration of its own (`CREATE OR REPLACE PROCEDURE`), never this text.
enum FinishLoginProcedure {
    static let name = "latchkey_finish_login"

    /// Migration 19 on PostgreSQL. Every integer is `bigint` (PostgresNIO binds `Int64`).
    static let create = """
        CREATE OR REPLACE PROCEDURE \(name)(
            bytea, bigint, bigint, bigint, bigint, bigint, bytea, bigint, bytea, bigint,
            text, text, text, text, text, text,
            INOUT used bigint DEFAULT NULL, INOUT stored bigint DEFAULT NULL)
        LANGUAGE plpgsql AS $procedure$
        BEGIN
            WITH marked AS (
                INSERT INTO used_challenges (digest, expires_at) VALUES ($1, $2) ON CONFLICT (expires_at, digest) DO NOTHING RETURNING digest
            ), moved AS (
                UPDATE credentials SET sign_count = $3, backup_state = $4, uv_initialized = CASE WHEN $5 = 1 THEN 1 ELSE uv_initialized END,
                    last_used_at = $6, backup_state_changed_at = CASE WHEN backup_state <> $4 THEN $6 ELSE backup_state_changed_at END
                WHERE id = $7 AND sign_count = $8 AND EXISTS (SELECT 1 FROM marked)
                RETURNING account_id
            ), opened AS (
                INSERT INTO sessions (token_hash, account_id, created_at, expires_at, credential_id, user_verified)
                SELECT $9, account_id, $6, $10, $7, $5 FROM moved
                RETURNING token_hash
            ), audited AS (
                INSERT INTO audit_events (at, event, account_id, credential_id, actor, client_address, user_agent, request_id, detail)
                SELECT $6, e.event, m.account_id, $7, $11, $12, $13, $14, e.detail
                FROM moved m, json_to_recordset($15::json) AS e(event text, detail text)
                RETURNING id
            ), queued AS (
                INSERT INTO webhook_outbox (audit_id, endpoint, attempts, next_attempt_at)
                SELECT a.id, endpoint, 0, $6 FROM audited a, unnest(string_to_array($16, ',')) AS endpoint
                RETURNING audit_id
            )
            SELECT (SELECT count(*) FROM marked), (SELECT count(*) FROM opened) INTO used, stored;
            COMMIT;
        END
        $procedure$
        """
}
