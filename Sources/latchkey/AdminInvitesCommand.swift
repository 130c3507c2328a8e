import ArgumentParser
import Foundation
import LatchkeyServer

/// `latchkey admin invites …` and `latchkey admin accounts create`: who may have an account when sign-up
/// is by invitation (`--signup invite`) or closed. An invitation's link, `ORIGIN/invite#CODE`, is printed
/// once; a broken field rule is one sentence naming the field, exit 2.
extension AdminCommand {
    struct Invites: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Invitations: a link that lets a person make their account and its first passkey.",
            subcommands: [Create.self, List.self, Revoke.self])

        struct Create: AdminSubcommand {
            static let configuration = CommandConfiguration(
                abstract: "Make an invitation and print its link, once (only its hash is stored).")
            @Option(help: "The account's username (2 to 32 of a-z 0-9 . _ -), promised to the person.") var username: String?
            @Option(help: "How many accounts it makes, one per use (1 to 1000; several only without --username and --email).")
            var uses = 1
            @OptionGroup var options: InvitationOptions
            @OptionGroup var database: Database

            func answer(_ console: AdminConsole) async throws -> String {
                var settings = options.settings
                settings.username = username
                settings.uses = uses
                return try await console.createInvitation(settings, json: options.json)
            }
        }

        struct List: AdminSubcommand {
            static let configuration = CommandConfiguration(abstract: "Invitations, newest first (never their codes).")
            @OptionGroup var database: Database
            @Flag(help: "Print JSON instead of a table.") var json = false

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.invitationList(json: json)
            }
        }

        struct Revoke: AdminSubcommand {
            static let configuration = CommandConfiguration(abstract: "Revoke a live invitation; its link stops working.")
            @Argument(help: "The invitation's id (the code's first group, as invites list prints it).") var invitation: String
            @OptionGroup var database: Database

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.revokeInvitation(id: invitation)
            }
        }
    }

    /// What `invites create` and `accounts create` share: the account's email and groups, how long the link
    /// works, whether it is mailed, and `--json`.
    struct InvitationOptions: ParsableArguments {
        @Option(help: "The account's email address (verified once the person uses a link mailed to it).") var email: String?
        @Option(name: .customLong("group"), help: ArgumentHelp("A group the account is in (repeat for more).", valueName: "group"))
        var groups: [String] = []
        @Option(help: "How long the link works: 5m to 90d (as 30m, 12h, 7d, or seconds).") var ttl = "7d"
        @Flag(help: "Mail the link to --email (the SMTP server of --config or LATCHKEY_SMTP_URL).") var send = false
        @Option(help: "The language of the mail and of the account made (a shipped language: de, fr, ja…; default: --default-language).")
        var language: String?
        @Flag(help: "Print JSON instead of text.") var json = false

        func validate() throws {
            guard Lifetime.seconds(ttl, within: Self.lifetimes) != nil else {
                throw ValidationError("--ttl must be from 5m to 90d, like 12h, 7d or 86400 (seconds), not \"\(ttl)\".")
            }
        }

        /// What the server accepts (`InvitationService.lifetimeSeconds`, which refuses anything else again).
        static let lifetimes: ClosedRange<TimeInterval> = 300...7_776_000

        var settings: AdminConsole.InvitationSettings {
            var settings = AdminConsole.InvitationSettings()
            settings.email = email
            settings.groups = groups
            settings.ttlSeconds = Lifetime.seconds(ttl, within: Self.lifetimes).map { Int($0) }
            settings.send = send
            settings.language = language
            return settings
        }
    }
}

extension AdminCommand.Accounts {
    struct Create: AdminSubcommand {
        static let configuration = CommandConfiguration(
            abstract: "Make an account without a passkey, and print the link that adds its first one, once.")
        @Option(help: "Its username (2 to 32 of a-z 0-9 . _ -).") var username: String
        @Option(name: .customLong("display-name"), help: "The name it greets the person by (default: the username).")
        var displayName: String?
        @OptionGroup var options: AdminCommand.InvitationOptions
        @OptionGroup var database: AdminCommand.Database

        func answer(_ console: AdminConsole) async throws -> String {
            var settings = options.settings
            settings.username = username
            settings.displayName = displayName
            return try await console.createAccount(settings, json: options.json)
        }
    }
}

/// A lifetime as typed: `90s`, `30m`, `12h`, `7d` or a number of seconds, within `range`; nil otherwise.
/// `inf`, `nan`, `1e300` and 20-digit numbers are refused here, before anything converts them (review 4,
/// S4-2: `--ttl inf` trapped).
enum Lifetime {
    static func seconds(_ text: String, within range: ClosedRange<TimeInterval>) -> TimeInterval? {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        var number = Double(text)
        if number == nil, let unit = text.last.flatMap({ units[$0] }) { number = Double(text.dropLast()).map { $0 * unit } }
        guard let number, number.isFinite, range.contains(number) else { return nil }
        return number
    }
}
