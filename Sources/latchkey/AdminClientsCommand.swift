import ArgumentParser
import Foundation
import LatchkeyServer

/// `latchkey admin clients …`: the OpenID Connect clients (relying parties) people sign in to with
/// their passkeys. A broken rule (a redirect URI, a scope, …) is one sentence naming the field, exit 2.
extension AdminCommand {
    struct Clients: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The OpenID Connect clients: apps that let people sign in with Latchkey.",
            subcommands: [Add.self, List.self, Show.self, Update.self, RotateSecret.self, Remove.self, Export.self])

        /// The settings `add` and `update` share.
        struct Settings: ParsableArguments {
            @Option(name: .customLong("redirect-uri"), help: ArgumentHelp(
                "Where codes may be sent, exactly (repeat for more): https, a native app's scheme (app.example:/cb), or http on localhost, 127.0.0.1 or [::1].",
                valueName: "uri"))
            var redirectURIs: [String] = []
            @Option(name: .customLong("post-logout-uri"), help: ArgumentHelp(
                "Where the app may send the person after logging out (repeat for more; same rules).", valueName: "uri"))
            var postLogoutURIs: [String] = []
            @Option(name: .customLong("id-token-alg"), help: "How its id_tokens are signed: ES256 (default) or RS256.")
            var idTokenAlg: String?
            @Option(name: .customLong("scope"), help: ArgumentHelp(
                "A scope it may ask for (repeat): openid (required), profile, email, groups, offline_access. Default: all but offline_access.",
                valueName: "scope"))
            var scopes: [String] = []
            @Option(name: .customLong("allowed-group"), help: ArgumentHelp(
                "Only members of this group may sign in to it (repeat for more; default: anyone).", valueName: "group"))
            var allowedGroups: [String] = []
            @Option(name: .customLong("grant"), help: ArgumentHelp(
                "A grant it may use (repeat): authorization_code (default), client_credentials (a confidential client acting for itself), device_code. Given, it replaces the list.",
                valueName: "grant"))
            var grantTypes: [String] = []
            @Option(name: .customLong("api-scope"), help: ArgumentHelp(
                "An API scope its client_credentials tokens may carry (repeat; e.g. orders:read). Given, it replaces the list.",
                valueName: "scope"))
            var apiScopes: [String] = []
            @Option(name: .customLong("jwks-file"), help: ArgumentHelp(
                "A JSON Web Key Set of the public keys its private_key_jwt assertions are signed with (each key with a kid); such a client gets no secret.",
                valueName: "file"))
            var jwksFile: String?
            @Option(name: .customLong("jwks-uri"), help: ArgumentHelp(
                "Where the client publishes the JSON Web Key Set its private_key_jwt assertions are signed with (https), instead of --jwks-file; fetched under the webhooks' address rules, kept 5 minutes.",
                valueName: "uri"))
            var jwksURI: String?
            @Option(name: .customLong("backchannel-logout-uri"), help: ArgumentHelp(
                "Where Latchkey POSTs a signed logout token when a person's session ends or they remove the app (Back-Channel Logout 1.0): https, or http on localhost.",
                valueName: "uri"))
            var backchannelLogoutURI: String?
            @Option(name: .customLong("groups-claim"), help: ArgumentHelp(
                "The claim its tokens carry the person's groups under: groups (default), roles, …", valueName: "name"))
            var groupsClaim: String?
            @Option(help: ArgumentHelp(
                "Its logo on the consent screen: a PNG or SVG file of at most 32 KiB (its type read from its bytes).", valueName: "file"))
            var logo: String?
            @Flag(help: "Print JSON (what the admin API answers) instead of text.")
            var json = false

            func settings() throws -> AdminConsole.ClientSettings {
                var settings = AdminConsole.ClientSettings()
                settings.redirectURIs = redirectURIs
                settings.postLogoutURIs = postLogoutURIs
                settings.idTokenAlg = idTokenAlg
                settings.scopes = scopes
                settings.allowedGroups = allowedGroups
                settings.grantTypes = grantTypes
                settings.apiScopes = apiScopes
                settings.backchannelLogoutURI = backchannelLogoutURI
                settings.groupsClaim = groupsClaim
                settings.jwksURI = jwksURI
                if let jwksFile {
                    do {
                        settings.jwks = try String(contentsOfFile: jwksFile, encoding: .utf8)
                    } catch {
                        throw ValidationError("--jwks-file: \(jwksFile) cannot be read as text.")
                    }
                }
                if let logo {
                    // Read up to one byte past the limit: a larger file is refused by the server's rule
                    // without being read whole.
                    guard let handle = FileHandle(forReadingAtPath: logo), let data = try? handle.read(upToCount: 32 * 1024 + 1), !data.isEmpty
                    else { throw ValidationError("--logo: \(logo) cannot be read.") }
                    try? handle.close()
                    settings.logo = data.base64EncodedString()
                }
                return settings
            }
        }

        struct Add: AdminSubcommand {
            static let configuration = CommandConfiguration(
                abstract: "Register a client; a confidential client's secret is printed once (only its SHA-256 is stored).")
            @Argument(help: "Its name, as the consent screen shows it (1 to 100 characters).") var name: String
            @OptionGroup var settings: Settings
            @Flag(help: "A public client (a native or single-page app): no secret, PKCE required.") var `public` = false
            @Flag(name: .customLong("first-party"), help: "Operated by you: people are not asked for consent.") var firstParty = false
            @Option(help: "Its client_id (3 to 64 of A-Z a-z 0-9 . _ -); default: 22 random characters.") var id: String?
            @OptionGroup var database: Database

            func answer(_ console: AdminConsole) async throws -> String {
                var given = try settings.settings()
                given.name = name
                given.isPublic = `public`
                given.firstParty = firstParty
                return try await console.addClient(id: id, given, json: settings.json)
            }
        }

        struct List: AdminSubcommand {
            static let configuration = CommandConfiguration(abstract: "Every client (never their secrets).")
            @OptionGroup var database: Database
            @Flag(help: "Print JSON instead of a table.") var json = false

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.clients(json: json)
            }
        }

        struct Show: AdminSubcommand {
            static let configuration = CommandConfiguration(abstract: "One client's settings.")
            @Argument(help: "The client id.") var client: String
            @OptionGroup var database: Database
            @Flag(help: "Print JSON instead of text.") var json = false

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.showClient(id: client, json: json)
            }
        }

        struct Update: AdminSubcommand {
            static let configuration = CommandConfiguration(
                abstract: "Change a client: what is given replaces what it had (--redirect-uri replaces every redirect URI).")
            @Argument(help: "The client id.") var client: String
            @Option(help: "A new name.") var name: String?
            @OptionGroup var settings: Settings
            @Flag(name: .customLong("no-post-logout-uris"), help: "Remove every post-logout URI.") var noPostLogoutURIs = false
            @Flag(name: .customLong("no-allowed-groups"), help: "Let anyone sign in to it again.") var noAllowedGroups = false
            @Flag(name: .customLong("no-api-scopes"), help: "Remove every API scope.") var noAPIScopes = false
            @Flag(name: .customLong("no-jwks"), help: "Remove its keys (private_key_jwt); with no secret either, it is public.") var noJWKS = false
            @Flag(name: .customLong("no-jwks-uri"), help: "Stop fetching its published keys; with no secret either, it is public.") var noJWKSURI = false
            @Flag(name: .customLong("no-backchannel-logout-uri"), help: "Send it no more logout tokens.") var noBackchannelLogoutURI = false
            @Flag(name: .customLong("no-logo"), help: "Remove its logo.") var noLogo = false
            @Flag(inversion: .prefixedNo, help: "Whether people are asked for consent (--no-first-party: they are).")
            var firstParty: Bool?
            @Flag(help: "Make it public: its secret is deleted.") var `public` = false
            @Flag(help: "Make a public client confidential: a secret is made and printed once.") var confidential = false
            @OptionGroup var database: Database

            func validate() throws {
                guard !(`public` && confidential) else { throw ValidationError("--public and --confidential exclude each other.") }
                guard !(noPostLogoutURIs && !settings.postLogoutURIs.isEmpty) else {
                    throw ValidationError("--no-post-logout-uris and --post-logout-uri exclude each other.")
                }
                guard !(noAllowedGroups && !settings.allowedGroups.isEmpty) else {
                    throw ValidationError("--no-allowed-groups and --allowed-group exclude each other.")
                }
                guard !(noBackchannelLogoutURI && settings.backchannelLogoutURI != nil) else {
                    throw ValidationError("--no-backchannel-logout-uri and --backchannel-logout-uri exclude each other.")
                }
                guard !(noJWKS && settings.jwksFile != nil) else { throw ValidationError("--no-jwks and --jwks-file exclude each other.") }
                guard !(noLogo && settings.logo != nil) else { throw ValidationError("--no-logo and --logo exclude each other.") }
                guard !(noJWKSURI && settings.jwksURI != nil) else { throw ValidationError("--no-jwks-uri and --jwks-uri exclude each other.") }
                guard !(noAPIScopes && !settings.apiScopes.isEmpty) else {
                    throw ValidationError("--no-api-scopes and --api-scope exclude each other.")
                }
            }

            func answer(_ console: AdminConsole) async throws -> String {
                var given = try settings.settings()
                if noJWKS { given.jwks = "" }
                if noLogo { given.logo = "" }
                if noJWKSURI { given.jwksURI = "" }
                if noBackchannelLogoutURI { given.backchannelLogoutURI = "" }
                given.name = name
                given.clearPostLogoutURIs = noPostLogoutURIs
                given.clearAllowedGroups = noAllowedGroups
                given.clearAPIScopes = noAPIScopes
                given.firstParty = firstParty
                given.isPublic = `public` ? true : confidential ? false : nil
                return try await console.updateClient(id: client, given, json: settings.json)
            }
        }

        struct RotateSecret: AdminSubcommand {
            static let configuration = CommandConfiguration(
                commandName: "rotate-secret", abstract: "Give a confidential client a new secret, printed once; the old one stops working.")
            @Argument(help: "The client id.") var client: String
            @OptionGroup var database: Database
            @Flag(help: "Print JSON instead of text.") var json = false

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.rotateClientSecret(id: client, json: json)
            }
        }

        struct Export: AdminSubcommand {
            static let configuration = CommandConfiguration(
                abstract: "Print every client as an [[oidc-client]] table of latchkey.toml (secrets as their SHA-256 only), to keep them in the file.")
            @OptionGroup var database: Database

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.exportClients()
            }
        }

        struct Remove: AdminSubcommand {
            static let configuration = CommandConfiguration(
                abstract: "Remove a client with the consents and grants people gave it (its tokens stop working).")
            @Argument(help: "The client id.") var client: String
            @OptionGroup var database: Database

            func answer(_ console: AdminConsole) async throws -> String {
                try await console.removeClient(id: client)
            }
        }
    }
}
