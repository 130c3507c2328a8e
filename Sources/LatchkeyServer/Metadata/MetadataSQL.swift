import LatchkeyDatabase

/// The FIDO metadata's statements (`Store+Metadata.swift`).
extension SQL {
    static let metadataBLOB = StoreStatement("SELECT serial, next_update, legal_header, entries, loaded_at FROM metadata_blob WHERE id = 1")
    /// Records BLOB number $1 unless the stored one's is as large: RETURNING a row only when it replaced (or
    /// was the first). On PostgreSQL a concurrent load waits on the row, then finds it as new as its own.
    static let replaceMetadataBLOB = StoreStatement("""
        INSERT INTO metadata_blob (id, serial, next_update, legal_header, entries, loaded_at) VALUES (1, $1, $2, $3, $4, $5)
        ON CONFLICT (id) DO UPDATE SET serial = excluded.serial, next_update = excluded.next_update,
            legal_header = excluded.legal_header, entries = excluded.entries, loaded_at = excluded.loaded_at
        WHERE metadata_blob.serial < excluded.serial
        RETURNING serial
        """)
    static let deleteMetadataEntries = StoreStatement("DELETE FROM metadata_entries")
    static let insertMetadataEntry = StoreStatement("""
        INSERT INTO metadata_entries (aaguid, description, root_certificates, status, status_date, icon) VALUES ($1, $2, $3, $4, $5, $6)
        """)
    static let metadataEntry = StoreStatement("""
        SELECT aaguid, description, root_certificates, status, status_date, icon FROM metadata_entries WHERE aaguid = $1
        """)
}
