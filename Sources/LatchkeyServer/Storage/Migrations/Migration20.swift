import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// The fourth security review (issue 42). Device requests note who asked (an IPv4 address or an
    /// IPv6 /64, as the rate limiter counts them), so that one requester holds a few live requests, not
    /// the whole table (S4-3), and may name the account they are for (S4-12). Grants are read per account and client (the apps list aggregates them
    /// there, and a new authorization replaces the same session's pending one: S4-4). Every username an
    /// account ever held stays its own (S4-5: a released name taken by another account signed that
    /// account in as the first at every app keyed on `preferred_username`).
    static let v20 = Migrations.Migration(
        version: 20,
        summary: "Device requests bounded per requester, OpenID Connect grants indexed per account and client, usernames never passed to another account."
    ) { _ in
        [
            "ALTER TABLE device_requests ADD COLUMN requester TEXT",
            "ALTER TABLE device_requests ADD COLUMN for_username TEXT",
            "CREATE INDEX device_requests_by_requester ON device_requests (requester, expires_at)",
            "CREATE INDEX oidc_grants_by_account_client ON oidc_grants (account_id, client_id, expires_at)",
            """
            CREATE TABLE usernames (
                username TEXT PRIMARY KEY,
                account_id TEXT NOT NULL,
                first_used_at BIGINT NOT NULL)
            """,
            SQL.backfillUsernames,
        ]
    }
}
