import ArgumentParser
import LatchkeyServer

/// `latchkey admin claims …`: custom claims an account or a group carries into the id_tokens and UserInfo
/// of apps whose grant holds the claim's scope. A broken rule (a reserved name, a long value) exits 2.
extension AdminCommand {
    struct Claims: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Custom claims of an account or a group, for the apps people sign in to.", subcommands: [Set.self, Unset.self, List.self])

        /// Exactly one of `--account` and `--group`.
        struct Holder: ParsableArguments {
            @Option(help: "The account (its id).") var account: String?
            @Option(help: "The group (its members carry the claim unless their account has its own).") var group: String?

            func validate() throws {
                guard (account == nil) != (group == nil) else { throw ValidationError("Give exactly one of --account and --group.") }
            }
        }

        struct Set: AdminSubcommand {
            static let configuration = CommandConfiguration(abstract: "Give an account or a group a claim (replacing one of the same name).")
            @OptionGroup var holder: Holder
            @Argument(help: "The claim's name (1 to 64 of A-Z a-z 0-9 . _ : -; not sub, iss, aud, email, groups …).") var name: String
            @Argument(help: "Its value (text, at most 1024 bytes).") var value: String
            @Option(help: "The scope that releases it: profile (default), email or groups.") var scope: String?
            @Flag(help: "Print JSON instead of text.") var json = false
            @OptionGroup var database: Database

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.setClaim(account: holder.account, group: holder.group, name: name, value: value, scope: scope, json: json)
            }
        }

        struct Unset: AdminSubcommand {
            static let configuration = CommandConfiguration(abstract: "Remove a claim from an account or a group.")
            @OptionGroup var holder: Holder
            @Argument(help: "The claim's name.") var name: String
            @OptionGroup var database: Database

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.unsetClaim(account: holder.account, group: holder.group, name: name)
            }
        }

        struct List: AdminSubcommand {
            static let configuration = CommandConfiguration(abstract: "The claims of an account or a group.")
            @OptionGroup var holder: Holder
            @Flag(help: "Print JSON instead of a table.") var json = false
            @OptionGroup var database: Database

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.claims(account: holder.account, group: holder.group, json: json)
            }
        }
    }
}
