import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// OpenID Connect (issue 31). What apps may know about a person: a unique username (lower case,
    /// so one index keeps it unique whatever the case typed), an email and whether it was verified, and
    /// groups (space-separated names). The clients an operator registered (a confidential one's secret
    /// as its SHA-256 only; lists space-separated: URIs cannot hold a space), the consents people gave
    /// them, and the grants: one per authorization, the family its code, refresh tokens and access tokens
    /// belong to, so that a replayed code or refresh token can end all of it at once (RFC 9700 §4.14).
    static let v12 = Migrations.Migration(
        version: 12,
        summary: "OpenID Connect: usernames, emails and groups on accounts; clients, consents, grants, codes and refresh tokens (hashes only)."
    ) { flavor in
        let bytes = flavor.bytesType
        return [
            "ALTER TABLE accounts ADD COLUMN username TEXT",
            "CREATE UNIQUE INDEX accounts_by_username ON accounts (username)",
            "ALTER TABLE accounts ADD COLUMN email TEXT",
            "ALTER TABLE accounts ADD COLUMN email_verified INTEGER NOT NULL DEFAULT 0",
            "ALTER TABLE accounts ADD COLUMN group_names TEXT NOT NULL DEFAULT ''",
            """
            CREATE TABLE oidc_clients (
                id TEXT PRIMARY KEY,
                name TEXT NOT NULL,
                secret_hash \(bytes),
                redirect_uris TEXT NOT NULL,
                post_logout_uris TEXT NOT NULL DEFAULT '',
                id_token_alg TEXT NOT NULL DEFAULT 'ES256',
                first_party INTEGER NOT NULL DEFAULT 0,
                scopes TEXT NOT NULL,
                allowed_groups TEXT NOT NULL DEFAULT '',
                created_at BIGINT NOT NULL,
                updated_at BIGINT NOT NULL,
                created_by TEXT NOT NULL)
            """,
            """
            CREATE TABLE oidc_consents (
                account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                client_id TEXT NOT NULL REFERENCES oidc_clients(id) ON DELETE CASCADE,
                scopes TEXT NOT NULL,
                granted_at BIGINT NOT NULL,
                PRIMARY KEY (account_id, client_id))
            """,
            """
            CREATE TABLE oidc_grants (
                id TEXT PRIMARY KEY,
                client_id TEXT NOT NULL REFERENCES oidc_clients(id) ON DELETE CASCADE,
                account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                session_hash \(bytes),
                scope TEXT NOT NULL,
                nonce TEXT,
                auth_time BIGINT NOT NULL,
                amr TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                revoked_at BIGINT)
            """,
            "CREATE INDEX oidc_grants_by_account ON oidc_grants (account_id)",
            "CREATE INDEX oidc_grants_by_client ON oidc_grants (client_id)",
            "CREATE INDEX oidc_grants_by_expiry ON oidc_grants (expires_at)",
            """
            CREATE TABLE oidc_codes (
                code_hash \(bytes) PRIMARY KEY,
                grant_id TEXT NOT NULL REFERENCES oidc_grants(id) ON DELETE CASCADE,
                redirect_uri TEXT NOT NULL,
                code_challenge TEXT,
                expires_at BIGINT NOT NULL,
                used_at BIGINT)
            """,
            "CREATE INDEX oidc_codes_by_grant ON oidc_codes (grant_id)",
            """
            CREATE TABLE oidc_refresh_tokens (
                token_hash \(bytes) PRIMARY KEY,
                grant_id TEXT NOT NULL REFERENCES oidc_grants(id) ON DELETE CASCADE,
                issued_at BIGINT NOT NULL,
                used_at BIGINT)
            """,
            "CREATE INDEX oidc_refresh_tokens_by_grant ON oidc_refresh_tokens (grant_id)",
        ]
    }
}
