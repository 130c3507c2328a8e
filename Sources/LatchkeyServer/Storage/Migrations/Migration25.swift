import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// OpenID Connect Back-Channel Logout 1.0 (issue 49). A client may name a `backchannel_logout_uri`
    /// ('' when it has none); when a person's session ends on Latchkey (they log out, an operator revokes
    /// their sessions or disables them) or they take an app's access back, a logout token for each client
    /// concerned is queued in `oidc_logout_outbox` by the same transaction, and delivered in the background
    /// as webhooks are (a lease, retries with backoff). A row holds what the token says — its `jti`, the
    /// account (`sub`) and the session's `sid` — never a signed token: it is signed when it is sent.
    ///
    /// Custom claims an operator gives an account or a group (`oidc_account_claims`, `oidc_group_claims`):
    /// a name, a string value, and the scope that releases it; and the name a client reads the person's
    /// groups under (`groups_claim`: `groups`, `roles`, …).
    static let v25 = Migrations.Migration(
        version: 25,
        summary: "OpenID Connect clients' back-channel logout URI and groups claim name; the logout tokens waiting to be delivered; custom claims per account and per group."
    ) { _ in
        [
            "ALTER TABLE oidc_clients ADD COLUMN backchannel_logout_uri TEXT NOT NULL DEFAULT ''",
            """
            CREATE TABLE oidc_logout_outbox (
                jti TEXT PRIMARY KEY,
                client_id TEXT NOT NULL REFERENCES oidc_clients(id) ON DELETE CASCADE,
                account_id TEXT NOT NULL,
                sid TEXT,
                created_at BIGINT NOT NULL,
                next_attempt_at BIGINT NOT NULL,
                attempts INTEGER NOT NULL DEFAULT 0,
                last_error TEXT)
            """,
            "CREATE INDEX oidc_logout_outbox_by_due ON oidc_logout_outbox (next_attempt_at)",
            "ALTER TABLE oidc_clients ADD COLUMN groups_claim TEXT NOT NULL DEFAULT 'groups'",
            """
            CREATE TABLE oidc_account_claims (
                account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                name TEXT NOT NULL,
                value TEXT NOT NULL,
                scope TEXT NOT NULL,
                updated_at BIGINT NOT NULL,
                PRIMARY KEY (account_id, name))
            """,
            """
            CREATE TABLE oidc_group_claims (
                group_name TEXT NOT NULL,
                name TEXT NOT NULL,
                value TEXT NOT NULL,
                scope TEXT NOT NULL,
                updated_at BIGINT NOT NULL,
                PRIMARY KEY (group_name, name))
            """,
        ]
    }
}
