import Foundation

/// The export document (`latchkey export`, `latchkey import`): JSON Lines, so that a million accounts are
/// written and read a row at a time. The first line is the header — `{"format": "latchkey-export",
/// "version": 1, "schemaVersion": N, "exportedAt": "…", "tables": […]}` — and every other line one row,
/// `{"t": TABLE, "r": {COLUMN: VALUE, …}}`: text and numbers as JSON strings and numbers, bytes as base64url
/// strings, NULL as null. Database-neutral: the same document imports into SQLite or PostgreSQL.
///
/// What is in it: the accounts (with username, email, groups), their passkeys with counters and flags,
/// the server keys still wrapped under the key file (a restore needs the same key file, exactly as with a
/// backup), the admin keys, the console's administrators (`admin_roles`), recovery grants and invitations as hashes (with the invitations' uses), the OpenID Connect clients (secrets as hashes),
/// consents, grants and refresh tokens; sessions and the audit trail only when asked for. Not in it:
/// what lives minutes or an hour or a day (used challenges, authorization codes, device requests, device authorizations
/// (RFC 8628) and used client assertions, the console's sessions and the first administrator's setup links, email confirmation
/// links and the mail log, rate-limit buckets, the webhook outbox, the housekeeping's claims), and the FIDO metadata (its BLOB is loaded again from the file).
/// Nor derived data: the account search's trigram tables on SQLite (`AccountSearchIndex`), which the
/// import rebuilds: their triggers note the accounts and passkeys it inserts, and it indexes them at the end.
package enum ExportFormat {
    package static let name = "latchkey-export"
    /// The document version this build writes; it reads this one and older ones.
    package static let version = 1

    /// One exported table, in the order rows must be inserted (parents before children).
    package struct Table: Sendable, Equatable {
        package let name: String
        /// Columns the database makes itself, left out (the audit trail's row numbers: PostgreSQL's
        /// identity column refuses values; the events keep their order).
        package var generated: [String] = []
        /// Only with `--sessions` / `--audit`.
        package var optional: Option? = nil
    }

    package enum Option: String, Sendable { case sessions, audit }

    package static let tables: [Table] = [
        Table(name: "accounts"),
        // Every username an account ever held (`SQL.noteUsername`): who may never take it again.
        Table(name: "usernames"),
        Table(name: "credentials"),
        Table(name: "sessions", optional: .sessions),
        Table(name: "server_keys"),
        Table(name: "admin_keys"),
        // Who administers the console (its sessions and the first administrator's setup links are not kept).
        Table(name: "admin_roles"),
        Table(name: "recovery_grants"),
        // Invitations (their codes as hashes) and the accounts their uses made.
        Table(name: "invitations"),
        Table(name: "invitation_uses"),
        Table(name: "oidc_clients"),
        Table(name: "oidc_consents"),
        Table(name: "oidc_grants"),
        Table(name: "oidc_refresh_tokens"),
        // The custom claims operators gave accounts and groups.
        Table(name: "oidc_account_claims"),
        Table(name: "oidc_group_claims"),
        Table(name: "audit_events", generated: ["id"], optional: .audit),
    ]

    /// How a column's values are written: by its declared type.
    package enum Kind: Sendable, Equatable {
        case text, integer, bytes

        /// From SQLite's declared type or PostgreSQL's `data_type`.
        package init?(declared: String) {
            let type = declared.lowercased()
            if type.contains("blob") || type.contains("bytea") {
                self = .bytes
            } else if type.contains("int") {
                self = .integer
            } else if type.contains("text") || type.contains("char") {
                self = .text
            } else {
                return nil
            }
        }
    }
}
