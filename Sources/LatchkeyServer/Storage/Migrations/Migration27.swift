import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// An OpenID Connect client's logo (issue 48 item 3): the consent screen shows the app an operator
    /// registered with its own image, not only its name. The bytes sit in the client's row (at most
    /// `OIDCClientLogo.maximumBytes`, a PNG or an SVG, the type read from the bytes when given and kept in
    /// `logo_type`, '' when there is none); the client's ordinary reads leave the bytes out
    /// (`SQL.oidcClientColumns`), only `GET /oidc/logo/{clientId}` reads them. Exported with the client.
    static let v27 = Migrations.Migration(
        version: 27,
        summary: "OpenID Connect clients' logo: its bytes and their type."
    ) { flavor in
        [
            "ALTER TABLE oidc_clients ADD COLUMN logo \(flavor == .postgres ? "BYTEA" : "BLOB")",
            "ALTER TABLE oidc_clients ADD COLUMN logo_type TEXT NOT NULL DEFAULT ''",
        ]
    }
}
