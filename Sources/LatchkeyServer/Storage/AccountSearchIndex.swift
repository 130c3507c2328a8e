/// The trigram index behind the admin API's account search (`AdminAccountStore.search`; migration 17).
///
/// A search for text inside display names and passkey names cannot use an ordinary index: on a million
/// accounts it read every account and every passkey, seconds per request. A trigram index finds the rows
/// that hold every three-character piece of the text; the search then checks those few rows with the
/// very comparison it always made (`lower(…) LIKE '%text%'`), so the index only narrows, never changes,
/// what is found. Hence the rule that a text shorter than 3 characters is refused: it has no trigram.
///
/// On SQLite: two contentless FTS5 tables with the trigram tokenizer, `account_name_trigrams` (rowid: the
/// account's rowid, the display name) and `credential_name_trigrams` (the passkey's rowid, its name),
/// `detail=none` (no positions: the search asks for rows holding all the trigrams and checks the rows
/// itself), kept by triggers that fire only when a name is written — a login writes neither.
///
/// Since migration 18 a new row is not indexed in the commit that inserts it: its trigger only notes its
/// rowid in `account_name_trigrams_pending` or `credential_name_trigrams_pending`, and `SearchIndexing`
/// moves the noted rows into the FTS5 tables a second later, many in one commit. Why: an FTS5 insert
/// writes a new segment (and its structure record, and now and then a merge) in every commit that has
/// one — about 15 of the 40 pages a registration wrote, 50 µs of its server CPU (issue 34). The search
/// stays exact in between: it takes the pending rows as candidates too (they are few: at most a second's
/// new rows), and checks every candidate with its `LIKE`. A rename or delete of a pending row touches
/// only the pending table (its name is read when it is indexed); of an indexed row, the FTS5 table, as
/// before — a contentless table must never be told to delete what it was never given. Derived
/// data: `latchkey export` leaves them out, and an import rebuilds them as it inserts the rows. On
/// PostgreSQL the same work is done by `pg_trgm` GIN indexes on `lower(display_name)` and `lower(name)`.
/// Keyed by rowid, which `VACUUM` and `VACUUM INTO` (`latchkey backup`) keep for a table with an index
/// (SQLite renumbers only a table with neither an INTEGER PRIMARY KEY nor any index): both have several.
enum AccountSearchIndex {
    /// The shortest text the search takes (other than none): one trigram.
    static let shortestText = 3

    /// At most this many trigrams go into one FTS5 query (the rows found are checked anyway; a long text
    /// would otherwise make a long AND chain for no better selection).
    static let mostTrigrams = 12

    /// Migration 17's SQLite statements: the tables, the triggers, and the names already there.
    static let sqliteSchema: [String] = {
        var statements: [String] = []
        for (table, source, column) in [("account_name_trigrams", "accounts", "display_name"), ("credential_name_trigrams", "credentials", "name")] {
            statements += [
                "CREATE VIRTUAL TABLE \(table) USING fts5(name, content='', detail='none', columnsize=0, tokenize='trigram')",
                "INSERT INTO \(table) (rowid, name) SELECT rowid, \(column) FROM \(source)",
                """
                CREATE TRIGGER \(table)_insert AFTER INSERT ON \(source) BEGIN
                    INSERT INTO \(table) (rowid, name) VALUES (new.rowid, new.\(column));
                END
                """,
                """
                CREATE TRIGGER \(table)_update AFTER UPDATE OF \(column) ON \(source) WHEN old.\(column) IS NOT new.\(column) BEGIN
                    INSERT INTO \(table) (\(table), rowid, name) VALUES ('delete', old.rowid, old.\(column));
                    INSERT INTO \(table) (rowid, name) VALUES (new.rowid, new.\(column));
                END
                """,
                """
                CREATE TRIGGER \(table)_delete AFTER DELETE ON \(source) BEGIN
                    INSERT INTO \(table) (\(table), rowid, name) VALUES ('delete', old.rowid, old.\(column));
                END
                """,
            ]
        }
        return statements
    }()

    /// Migration 18's SQLite statements: the pending tables, and triggers that note new rows there
    /// instead of indexing them (the tables' rows already indexed stay so).
    static let sqliteDeferredSchema: [String] = {
        var statements: [String] = []
        for (table, source, column) in [("account_name_trigrams", "accounts", "display_name"), ("credential_name_trigrams", "credentials", "name")] {
            let pending = "\(table)_pending"
            let notPending = "NOT EXISTS (SELECT 1 FROM \(pending) WHERE row = old.rowid)"
            statements += [
                // `row`: the rowid of the account or passkey; INTEGER PRIMARY KEY makes it the table's own
                // rowid, so noting a new row appends to one page.
                "CREATE TABLE \(pending) (row INTEGER PRIMARY KEY)",
                "DROP TRIGGER \(table)_insert",
                "DROP TRIGGER \(table)_update",
                "DROP TRIGGER \(table)_delete",
                """
                CREATE TRIGGER \(table)_insert AFTER INSERT ON \(source) BEGIN
                    INSERT OR IGNORE INTO \(pending) (row) VALUES (new.rowid);
                END
                """,
                """
                CREATE TRIGGER \(table)_update AFTER UPDATE OF \(column) ON \(source) WHEN old.\(column) IS NOT new.\(column) AND \(notPending) BEGIN
                    INSERT INTO \(table) (\(table), rowid, name) VALUES ('delete', old.rowid, old.\(column));
                    INSERT INTO \(table) (rowid, name) VALUES (new.rowid, new.\(column));
                END
                """,
                """
                CREATE TRIGGER \(table)_delete AFTER DELETE ON \(source) BEGIN
                    INSERT INTO \(table) (\(table), rowid, name) SELECT 'delete', old.rowid, old.\(column) WHERE \(notPending);
                    DELETE FROM \(pending) WHERE row = old.rowid;
                END
                """,
            ]
        }
        return statements
    }()

    /// At most this many pending rows of each table are indexed in one commit.
    static let batch = 2000

    /// The FTS5 query for rows holding `text`'s trigrams (at most `mostTrigrams`, spread over the text),
    /// each a quoted string: nothing in the text is FTS5 syntax. `text` is the search's lower-cased text,
    /// the same the `LIKE` pattern is made of; nil when it has fewer than 3 characters.
    static func ftsQuery(_ text: String) -> String? {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count >= 3 else { return nil }
        var trigrams: [String] = []
        for start in 0...(scalars.count - 3) {
            var trigram = String.UnicodeScalarView()
            trigram.append(contentsOf: scalars[start..<start + 3])
            let quoted = "\"" + String(trigram).replacingOccurrences(of: "\"", with: "\"\"") + "\""
            if !trigrams.contains(quoted) { trigrams.append(quoted) }
        }
        if trigrams.count > mostTrigrams {
            let last = trigrams.count - 1
            trigrams = (0..<mostTrigrams).map { trigrams[$0 * last / (mostTrigrams - 1)] }
        }
        return trigrams.joined(separator: " AND ")
    }
}
