import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// The admin API's account search on a million accounts (issue 34, item 6): a text search read every
    /// account and every passkey (seconds). Text is found through trigrams: on SQLite two contentless FTS5
    /// tables with the trigram tokenizer (SQLite 3.34 or newer), keyed by the rowid of the account or the
    /// passkey whose name they hold and kept by triggers — only a change of a name writes them, never a
    /// login; on PostgreSQL `pg_trgm` GIN indexes on the same `lower(…)` the search compares. pg_trgm is a
    /// trusted extension (PostgreSQL 13 and newer: the database's owner may create it), but a server
    /// without the contrib modules has none: the migration then goes on without those indexes and the
    /// text search reads every row as before (`docs/OPERATIONS.md`). Passkeys by AAGUID and by last use,
    /// for the AAGUID and last-login filters. Version 17: 16 is another change's number.
    static let v17 = Migrations.Migration(
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
    }
}
