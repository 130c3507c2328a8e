import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// Email for recovery (issue 30, item 4). A person's address is confirmed by a link whose token is
    /// stored as its SHA-256 only, bound to the account and the address, single use, a day at most (a new
    /// one replaces the old). Every mail sent is logged by the address's SHA-256 and the account, so that
    /// the per-address and per-account limits hold across instances; the log is purged after a day.
    /// Accounts are found by a verified address whatever its case (`lower(email)`).
    static let v13 = Migrations.Migration(
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
    }
}
