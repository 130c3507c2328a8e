import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// OpenID Connect clients declared in the configuration file (`[[oidc-client]]`, issue 49). A client
    /// `latchkey serve` made or adopted from the file is marked with the file's path in `managed_by` ('' for
    /// one an operator made by hand): the admin API and CLI refuse to change or remove it (409
    /// `client_managed`, naming the file), and it is removed when the file no longer declares it.
    ///
    /// A `private_key_jwt` client may name where its keys are published (`jwks_uri`, RFC 7591 §2) instead
    /// of registering them ('' for none): fetched when an assertion needs them, cached for minutes.
    static let v26 = Migrations.Migration(
        version: 26,
        summary: "OpenID Connect clients declared in the configuration file: the file that manages each ('' for none); a client's jwks_uri."
    ) { _ in
        [
            "ALTER TABLE oidc_clients ADD COLUMN managed_by TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE oidc_clients ADD COLUMN jwks_uri TEXT NOT NULL DEFAULT ''",
        ]
    }
}
