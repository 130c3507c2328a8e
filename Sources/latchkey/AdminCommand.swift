import ArgumentParser
import Foundation
import LatchkeyServer

/// `latchkey admin …`: an operator's tools, working on the database directly — no running server and
/// no admin key needed (whoever can open the database is the operator). Every change is audited with
/// the actor `cli`. The admin API (`/api/admin/…`) does the same over HTTP with an admin key.
struct AdminCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "admin",
        abstract: "Operate Latchkey on its database: accounts, passkeys, sessions, OpenID Connect clients, invitations, admin keys, the audit trail.",
        discussion: """
            Works on the database directly (stop nothing; SQLite and PostgreSQL both allow it while the server runs). \
            Tables for people; --json prints what the admin API answers.
            """,
        subcommands: [Accounts.self, Passkeys.self, Sessions.self, Clients.self, Claims.self, Recovery.self, Invites.self, Keys.self, Audit.self])

    /// Where the database is: `--database`, else `--config`'s file, else `LATCHKEY_DATABASE`, else ./latchkey.sqlite.
    struct Database: ParsableArguments {
        @Option(help: "sqlite:PATH (default sqlite:latchkey.sqlite) or postgres://user@host:port/database. Or LATCHKEY_DATABASE.")
        var database: String?
        @Option(help: "A latchkey serve configuration file (TOML) to read the database from. Or LATCHKEY_CONFIG.")
        var config: String?
        @Option(help: "The public origin recovery and invitation links start with (default: serve's, from --config or LATCHKEY_ORIGIN).")
        var origin: String?

        /// The settings `serve` would run with (`--database`, else the configuration file's, else
        /// `LATCHKEY_DATABASE`, …), not validated beyond what the database needs.
        func configuration() throws(ServerConfiguration.Invalid) -> ServerConfiguration {
            let environment = ProcessInfo.processInfo.environment
            let arguments = try ServeArguments(
                (database.map { ["--database", $0] } ?? []) + (config.map { ["--config", $0] } ?? []) + (origin.map { ["--origin", $0] } ?? []))
            let file = try arguments.configurationFilePath(environment: environment).map { path throws(ServerConfiguration.Invalid) in
                try ConfigurationFile(path: path)
            }
            return try arguments.resolve(environment: environment, file: file)
        }

        /// Runs `body` with the configuration; a `ServerConfiguration.Invalid` it throws is printed as one
        /// sentence after `latchkey COMMAND:`, with exit status 2.
        func withConfiguration<T>(command: String, _ body: (ServerConfiguration) async throws -> T) async throws -> T {
            do {
                return try await body(try configuration())
            } catch let invalid as ServerConfiguration.Invalid {
                Output.printError("latchkey \(command): \(ServeCommand.sentence(invalid.description))")
                throw ExitCode(2)
            }
        }

        /// Opens the database as `serve` would with the same settings.
        func console() async throws -> AdminConsole {
            try await withConfiguration(command: "admin") { try await AdminConsole.open(configuration: $0) }
        }

        /// Runs `body` on the opened database and prints its answer; a refusal is printed with its exit
        /// status (1, or 2 for a field's broken rule).
        func run(_ body: (AdminConsole) async throws -> String) async throws {
            let console = try await console()
            let answer: Result<String, any Error>
            do { answer = .success(try await body(console)) } catch { answer = .failure(error) }
            await console.close()
            switch answer {
            case .success(let text):
                print(text)
            case .failure(let refusal as AdminConsole.Refusal):
                Output.printError("latchkey admin: \(refusal.message) (\(refusal.code))")
                throw ExitCode(refusal.status)
            case .failure(let error):
                throw error
            }
        }
    }

    struct Page: ParsableArguments {
        @Option(help: "At most this many (1 to 500).")
        var limit: Int = 50
        @Flag(help: "Print JSON (what the admin API answers) instead of a table.")
        var json = false

        func validate() throws {
            guard (1...500).contains(limit) else { throw ValidationError("--limit must be from 1 to 500.") }
        }
    }

    // MARK: Accounts

    struct Accounts: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find, show, create, disable, enable and delete accounts; set what apps may learn about a person; make administrators.",
            subcommands: [
                List.self, Search.self, Show.self, Create.self, SetProfile.self, Disable.self, Enable.self, Delete.self,
                GrantAdmin.self, RevokeAdmin.self, Admins.self,
            ])

        struct List: AdminSubcommand {
            static let configuration = CommandConfiguration(abstract: "Every account, in id order.")
            @OptionGroup var database: Database
            @OptionGroup var page: Page
            @Option(help: "Start after this account id (the 'More:' line of the previous page).")
            var after = ""

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.searchAccounts(
                    text: "", provider: nil, lastLoginFrom: nil, lastLoginBefore: nil, after: after, limit: page.limit, json: page.json)
            }
        }

        struct Search: AdminSubcommand {
            static let configuration = CommandConfiguration(
                abstract: "Accounts by id, display name or passkey name, provider, last login.")
            @Argument(help: "The whole account id, or text in the display name or a passkey's name (any case); empty: any.")
            var text = ""
            @Option(help: "Holding a passkey of this provider: an AAGUID, or a name from the bundled list (\"Google Password Manager\").")
            var provider: String?
            @Option(name: .customLong("last-login-from"), help: "Last login at or after this time (ISO 8601, or a date).")
            var lastLoginFrom: String?
            @Option(name: .customLong("last-login-before"), help: "Last login before this time (never signed in counts as 1970).")
            var lastLoginBefore: String?
            @Option(help: "Start after this account id (the 'More:' line of the previous page).")
            var after = ""
            @OptionGroup var database: Database
            @OptionGroup var page: Page

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.searchAccounts(
                    text: text, provider: provider, lastLoginFrom: lastLoginFrom, lastLoginBefore: lastLoginBefore, after: after,
                    limit: page.limit, json: page.json)
            }
        }

        struct Show: AdminSubcommand {
            static let configuration = CommandConfiguration(abstract: "One account with its passkeys and live sessions.")
            @Argument(help: "The account id.") var account: String
            @OptionGroup var database: Database
            @Flag(help: "Print JSON instead of text.") var json = false

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.showAccount(id: account, json: json)
            }
        }

        struct SetProfile: AdminSubcommand {
            static let configuration = CommandConfiguration(
                commandName: "set",
                abstract: "Set what apps signing people in with OpenID Connect learn: username, email (and whether it is verified), groups.")
            @Argument(help: "The account id.") var account: String
            @Option(help: "The username apps see as preferred_username (2 to 32 of a-z 0-9 . _ -; lower-cased).") var username: String?
            @Flag(name: .customLong("no-username"), help: "Remove the username.") var noUsername = false
            @Option(help: "The email address.") var email: String?
            @Flag(name: .customLong("no-email"), help: "Remove the email address.") var noEmail = false
            @Flag(inversion: .prefixedNo, help: "Whether the email address is verified (a new address is not, unless this says so).")
            var emailVerified: Bool?
            @Option(name: .customLong("group"), help: ArgumentHelp("A group the account is in (repeat; replaces its groups).", valueName: "group"))
            var groups: [String] = []
            @Flag(name: .customLong("no-groups"), help: "Take the account out of every group.") var noGroups = false
            @OptionGroup var database: Database
            @Flag(help: "Print JSON instead of text.") var json = false

            func validate() throws {
                guard !(noUsername && username != nil) else { throw ValidationError("--username and --no-username exclude each other.") }
                guard !(noEmail && email != nil) else { throw ValidationError("--email and --no-email exclude each other.") }
                guard !(noGroups && !groups.isEmpty) else { throw ValidationError("--group and --no-groups exclude each other.") }
            }

            func answer(_ console: AdminConsole) async throws -> String {
                var settings = AdminConsole.ProfileSettings()
                settings.username = username
                settings.removeUsername = noUsername
                settings.email = email
                settings.removeEmail = noEmail
                settings.emailVerified = emailVerified
                settings.groups = groups
                settings.removeGroups = noGroups
                return try await console.setProfile(accountId: account, settings, json: json)
            }
        }

        struct Disable: AdminSubcommand {
            static let configuration = CommandConfiguration(
                abstract: "Disable an account: its sessions end and its logins are refused (403 account_disabled) until enabled.")
            @Argument(help: "The account id.") var account: String
            @OptionGroup var database: Database
            @Flag(help: "Print JSON instead of text.") var json = false

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.disable(accountId: account, json: json)
            }
        }

        struct Enable: AdminSubcommand {
            static let configuration = CommandConfiguration(abstract: "Enable a disabled account again.")
            @Argument(help: "The account id.") var account: String
            @OptionGroup var database: Database
            @Flag(help: "Print JSON instead of text.") var json = false

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.enable(accountId: account, json: json)
            }
        }

        struct Delete: AdminSubcommand {
            static let configuration = CommandConfiguration(
                abstract: "Delete an account, its passkeys and sessions (its audit trail stays until retention).")
            @Argument(help: "The account id.") var account: String
            @OptionGroup var database: Database

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.delete(accountId: account)
            }
        }
    }

    // MARK: Administrators

    struct GrantAdmin: AdminSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "grant-admin",
            abstract: "Make an account an administrator of the console (/admin), or change its scopes.")
        @Argument(help: "The account id.") var account: String
        @Option(
            name: .customLong("scope"),
            help: ArgumentHelp("read (find and read), write (also change) or recovery (also issue recovery grants); repeat for write and recovery.", valueName: "scope"))
        var scopes: [String] = ["read"]
        @OptionGroup var database: Database
        @Flag(help: "Print JSON instead of text.") var json = false

        func answer(_ console: AdminConsole) async throws -> String {
            try await console.grantAdmin(accountId: account, scopes: scopes, json: json)
        }
    }

    struct RevokeAdmin: AdminSubcommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke-admin", abstract: "Take the admin role away; the account's console sessions end at once.")
        @Argument(help: "The account id.") var account: String
        @OptionGroup var database: Database

        func answer(_ console: AdminConsole) async throws -> String {
            try await console.revokeAdmin(accountId: account)
        }
    }

    struct Admins: AdminSubcommand {
        static let configuration = CommandConfiguration(abstract: "Every administrator and its scopes.")
        @OptionGroup var database: Database
        @Flag(help: "Print JSON instead of a table.") var json = false

        func answer(_ console: AdminConsole) async throws -> String {
            try await console.admins(json: json)
        }
    }

    // MARK: Passkeys, sessions

    struct Passkeys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List passkeys the policy refuses, or remove one.", subcommands: [List.self, Remove.self])

        struct List: AdminSubcommand {
            static let configuration = CommandConfiguration(
                abstract: "Passkeys the authenticator policy (--config or the LATCHKEY_* settings) would refuse today; they keep working.")
            @Flag(name: .customLong("violating-policy"), help: "Only those the policy would refuse (the only listing there is).")
            var violatingPolicy = false
            @OptionGroup var database: Database
            @Flag(help: "Print JSON instead of a table.") var json = false

            func validate() throws {
                guard violatingPolicy else { throw ValidationError("Add --violating-policy (latchkey admin accounts show lists one account's passkeys).") }
            }

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.passkeysViolatingPolicy(json: json)
            }
        }

        struct Remove: AdminSubcommand {
            static let configuration = CommandConfiguration(abstract: "Remove a passkey and end the sessions it opened.")
            @Argument(help: "The passkey id (base64url, as accounts show prints it).") var passkey: String
            @Flag(name: .customLong("allow-last"), help: "Also when it is the account's last passkey (the person then needs recovery).")
            var allowLast = false
            @OptionGroup var database: Database

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.removePasskey(id: passkey, allowLast: allowLast)
            }
        }
    }

    struct Sessions: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "End an account's sessions.", subcommands: [Revoke.self])

        struct Revoke: AdminSubcommand {
            static let configuration = CommandConfiguration(
                abstract: "End every session of an account at once (its access tokens stop introspecting as active).")
            @Argument(help: "The account id.") var account: String
            @OptionGroup var database: Database

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.revokeSessions(accountId: account)
            }
        }
    }

    // MARK: Recovery

    struct Recovery: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Recovery grants: a short-lived code that lets a person who lost every passkey add one.",
            subcommands: [Issue.self, List.self, Revoke.self])

        struct Issue: AdminSubcommand {
            static let configuration = CommandConfiguration(
                abstract: "Issue a recovery grant (revoking the account's earlier one) and print its code and link, once.")
            @Argument(help: "The account id.") var account: String
            @Option(help: "How long it lives: 5m to 24h (as 90s, 30m, 1h, or seconds).") var ttl = "1h"
            @OptionGroup var database: Database
            @Flag(help: "Print JSON instead of text.") var json = false

            func validate() throws {
                guard Self.seconds(ttl) != nil else {
                    throw ValidationError("--ttl must be from 5m to 24h, like 30m, 1h or 3600 (seconds), not \"\(ttl)\".")
                }
            }

            /// `90s`, `30m`, `1h` or a number of seconds, within the 5 minutes to 24 hours a grant may live.
            static func seconds(_ text: String) -> TimeInterval? { Lifetime.seconds(text, within: lifetimes) }

            /// What the server accepts (`RecoveryService.lifetimes`, which refuses anything else again).
            static let lifetimes: ClosedRange<TimeInterval> = 300...86_400

            func answer(_ console: AdminConsole) async throws -> String {
                let lifetime = Self.seconds(ttl) ?? 3600
                return try await console.issueRecovery(accountId: account, lifetime: lifetime, json: json)
            }
        }

        struct List: AdminSubcommand {
            static let configuration = CommandConfiguration(abstract: "Recovery grants, newest first (never their codes).")
            @Option(help: "Only this account's.") var account: String?
            @OptionGroup var database: Database
            @Flag(help: "Print JSON instead of a table.") var json = false

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.recoveryGrants(accountId: account, json: json)
            }
        }

        struct Revoke: AdminSubcommand {
            static let configuration = CommandConfiguration(abstract: "Revoke a recovery grant, and end the session it may have given.")
            @Argument(help: "The grant's id (the code's first group).") var grant: String
            @OptionGroup var database: Database

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.revokeRecovery(grantId: grant)
            }
        }
    }

    // MARK: Admin keys

    struct Keys: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The admin API's keys.", subcommands: [Create.self, List.self, Revoke.self])

        struct Create: AdminSubcommand {
            static let configuration = CommandConfiguration(
                abstract: "Create an admin key; its secret is printed once, and only its SHA-256 is stored.")
            @Option(help: "read (find and read), write (also change) or recovery (also issue recovery grants).")
            var scope: String
            @Option(help: "What the key is for, to tell keys apart (1 to 64 characters).")
            var name: String
            @OptionGroup var database: Database
            @Flag(help: "Print JSON instead of text.") var json = false

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.createKey(scope: scope, name: name, json: json)
            }
        }

        struct List: AdminSubcommand {
            static let configuration = CommandConfiguration(abstract: "Every admin key, revoked ones included (never their secrets).")
            @OptionGroup var database: Database
            @Flag(help: "Print JSON instead of a table.") var json = false

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.keys(json: json)
            }
        }

        struct Revoke: AdminSubcommand {
            static let configuration = CommandConfiguration(abstract: "Revoke an admin key for good.")
            @Argument(help: "The key's id (ak…, as keys list prints it).") var key: String
            @OptionGroup var database: Database

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.revokeKey(id: key)
            }
        }
    }

    // MARK: Audit

    struct Audit: AdminSubcommand {
        static let configuration = CommandConfiguration(abstract: "The audit trail, newest first.")
        @Option(help: "Only this account's events.") var account: String?
        @Option(help: "Only events of this kind (login.succeeded, login.refused, passkey.added, account.disabled, …).")
        var event: String?
        @Option(help: "Only events at or after this time (ISO 8601, or a date).") var since: String?
        @Option(help: "Only events numbered below this (the 'More:' line of the previous page).") var before: Int64?
        @OptionGroup var database: Database
        @OptionGroup var page: Page

        func answer(_ console: AdminConsole) async throws -> String {
            try await console.audit(account: account, event: event, since: since, before: before, limit: page.limit, json: page.json)
        }
    }
}
