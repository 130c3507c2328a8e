import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// The account's language (issue 48): the code of a shipped catalogue (`Public/locales`), which the
    /// page sets when the person signs in, so that the mails sent for the account (confirming an address,
    /// recovery) are in their language. Null: the server's `--default-language`.
    static let v24 = Migrations.Migration(
        version: 24,
        summary: "The account's language, for its mails."
    ) { _ in
        ["ALTER TABLE accounts ADD COLUMN language TEXT"]
    }
}
