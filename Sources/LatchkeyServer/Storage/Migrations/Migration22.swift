import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// The admin console (issue 45). Who is an administrator: an account's role, with the scopes of an admin
    /// key (read, write, recovery; `AdminRole`). The first administrator of an installation comes from a
    /// one-time setup link `latchkey serve` prints while there is none: only the SHA-256 of its secret is
    /// stored, for an hour (`AdminSetupLink`). The console's sessions are a table of their own, so that a
    /// console token is never a session's and a session's never a console's; each notes how it was made
    /// (`amr`) and when its holder last proved presence with a user-verified passkey (`verified_at`: every
    /// change needs that within a few minutes, `ConsoleSession`).
    static let v22 = Migrations.Migration(
        version: 22,
        summary: "The admin console: administrators' roles, the first administrator's setup links (hashes only), the console's own sessions."
    ) { flavor in
        [
            """
            CREATE TABLE admin_roles (
                account_id TEXT PRIMARY KEY REFERENCES accounts(id) ON DELETE CASCADE,
                scopes TEXT NOT NULL,
                granted_at BIGINT NOT NULL,
                granted_by TEXT NOT NULL)
            """,
            """
            CREATE TABLE admin_setup_links (
                secret_hash \(flavor.bytesType) PRIMARY KEY,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL)
            """,
            """
            CREATE TABLE console_sessions (
                token_hash \(flavor.bytesType) PRIMARY KEY,
                account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                credential_id \(flavor.bytesType) NOT NULL,
                amr TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                verified_at BIGINT NOT NULL)
            """,
            "CREATE INDEX console_sessions_by_account ON console_sessions (account_id)",
        ]
    }
}
