import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// FIDO metadata (MDS3; issue 32, item 2): the BLOB last loaded (one row: its serial number, next
    /// update and legal header), and its FIDO2 entries by AAGUID — the model's name, its attestation roots
    /// (DER, one after another), its latest status and that status's date, its icon (a data URL). A newer
    /// BLOB replaces every entry in one transaction. Version 15: 14 is another change's number.
    static let v15 = Migrations.Migration(
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
    }
}
