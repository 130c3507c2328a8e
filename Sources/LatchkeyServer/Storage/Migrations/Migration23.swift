import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// OpenID Connect for machines and devices (issue 49). A client says which grants it may use
    /// (`authorization_code`, `client_credentials`, the device flow's URN), which API scopes an operator
    /// defined for it, and the public keys (a JWKS) it signs its `private_key_jwt` assertions with — each
    /// assertion's `jti` is kept (as SHA-256) until it expires, so that it is used once; `credentials_generation` is what its client-credentials tokens carry as `sid`, drawn
    /// anew when its secret changes (or a client revokes one), so every such token ends with it. Device
    /// authorizations (RFC 8628): the device code and the user code as SHA-256 only, who asked (an address
    /// or an IPv6 /64, as the rate limiter counts them) so one requester holds a few, the polling interval
    /// the client must keep, and once the person decided, their account and the grant their approval made.
    static let v23 = Migrations.Migration(
        version: 23,
        summary: "OpenID Connect clients' grant types, API scopes, client-credentials generation and JWKS; used client assertions and device authorizations (hashes only)."
    ) { flavor in
        let bytes = flavor.bytesType
        return [
            "ALTER TABLE oidc_clients ADD COLUMN grant_types TEXT NOT NULL DEFAULT 'authorization_code'",
            "ALTER TABLE oidc_clients ADD COLUMN api_scopes TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE oidc_clients ADD COLUMN credentials_generation TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE oidc_clients ADD COLUMN jwks TEXT",
            """
            CREATE TABLE oidc_client_assertions (
                client_id TEXT NOT NULL REFERENCES oidc_clients(id) ON DELETE CASCADE,
                jti_hash \(bytes) NOT NULL,
                expires_at BIGINT NOT NULL,
                PRIMARY KEY (client_id, jti_hash))
            """,
            "CREATE INDEX oidc_client_assertions_by_expiry ON oidc_client_assertions (expires_at)",
            """
            CREATE TABLE oidc_device_codes (
                device_hash \(bytes) PRIMARY KEY,
                user_hash \(bytes) NOT NULL UNIQUE,
                client_id TEXT NOT NULL REFERENCES oidc_clients(id) ON DELETE CASCADE,
                scope TEXT NOT NULL,
                requester TEXT NOT NULL,
                created_at BIGINT NOT NULL,
                expires_at BIGINT NOT NULL,
                interval_seconds INTEGER NOT NULL,
                polled_at BIGINT,
                account_id TEXT REFERENCES accounts(id) ON DELETE CASCADE,
                grant_id TEXT REFERENCES oidc_grants(id) ON DELETE CASCADE,
                decided_at BIGINT,
                approved INTEGER)
            """,
            "CREATE INDEX oidc_device_codes_by_requester ON oidc_device_codes (requester, expires_at)",
            "CREATE INDEX oidc_device_codes_by_expiry ON oidc_device_codes (expires_at)",
        ]
    }
}
