import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// Who may have an account (issue 43). Invitations, made by an operator: an id (the code's first group,
    /// as a recovery grant's) and the SHA-256 of the code's secret, never the code; the profile the account
    /// gets, how many accounts it may make, and the account it is for when an operator made that account
    /// too. Each use is a row: the account it made and the restricted session's tie to it, used up by the
    /// account's first passkey. An invitation someone asked for by mail (`--signup-domain`) notes who asked
    /// (an address or an IPv6 /64, as the rate limiter counts them), so that one requester holds a few.
    static let v21 = Migrations.Migration(
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
    }
}
