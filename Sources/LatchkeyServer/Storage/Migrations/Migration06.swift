import Foundation
import LatchkeyDatabase

extension Migrations.Migration {
    /// Access tokens (issue 14): whether the login that opened a session verified the user, for the
    /// tokens' `amr` claim. Sessions from before say no.
    static let v6 = Migrations.Migration(
        version: 6,
        summary: "Sessions record whether their login verified the user (the access tokens' amr)."
    ) { _ in
        ["ALTER TABLE sessions ADD COLUMN user_verified INTEGER NOT NULL DEFAULT 0"]
    }
}
