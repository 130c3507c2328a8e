import ArgumentParser
import AsyncHTTPClient
import Foundation
import LatchkeyClient
import NIOCore
import SoftAuthenticator
import WebAuthn

/// What every account command takes: which server, which origin, which local stores, output form.
struct ClientOptions: ParsableArguments {
    @Option(help: "The Latchkey server (default $LATCHKEY_SERVER or http://localhost:8080).")
    var server: String?
    @Option(help: "The origin the authenticator reports (default: the server URL's origin).")
    var origin: String?
    @Option(help: "The software authenticator's credential store file.")
    var store: String?
    @Option(name: .customLong("aaguid"), help: AAGUIDOption.help)
    var aaguid: String?
    @Flag(help: "Print JSON for scripts instead of text for people.")
    var json = false

    var serverURL: URL {
        get throws {
            let text = server ?? ProcessInfo.processInfo.environment["LATCHKEY_SERVER"] ?? "http://localhost:8080"
            guard let url = URL(string: text), let scheme = url.scheme, scheme == "http" || scheme == "https", url.host != nil else {
                Output.printError("latchkey: --server must be an http(s) URL such as http://localhost:8080, not \"\(text)\".")
                throw ExitCode(2)
            }
            return url
        }
    }

    var authenticator: SoftAuthenticator {
        get throws {
            var authenticator = SoftAuthenticator(
                store: FileCredentialStore(url: store.map { URL(fileURLWithPath: $0) } ?? FileCredentialStore.defaultURL()))
            if let aaguid = try AAGUIDOption.bytes(aaguid) { authenticator.aaguid = aaguid }
            return authenticator
        }
    }

    /// One HTTP client per command: a refused connection fails at once (no retrying until the deadline),
    /// so an unreachable server is reported in seconds.
    static let http: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(5), read: .seconds(30))
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    func client() throws -> PasskeyClient {
        PasskeyClient(
            server: try serverURL, authenticator: try authenticator, tokenStore: FileTokenStore(url: FileTokenStore.defaultURL()), origin: origin,
            http: Self.http)
    }

    /// Runs a client call; a `ClientError` becomes its message on stderr and the documented exit status.
    func run(_ body: () async throws -> Void) async throws {
        defer { _ = Self.http.shutdown() as EventLoopFuture<Void> }
        do {
            try await body()
        } catch let error as ClientError {
            Output.printError("latchkey: \(error).")
            switch error {
            case .unreachable: throw ExitCode(3)
            default: throw ExitCode(1)
            }
        }
    }

    func show(_ account: Account) {
        if json { try? Output.printEncodable(account) } else {
            print("Display name: \(account.displayName)")
            print("Credo:        \(account.credo.isEmpty ? "(none)" : account.credo)")
            print("Account id:   \(account.id)")
        }
    }
}

struct RegisterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "register", abstract: "Create an account with a new passkey named NAME (also its display name), and log in.")
    @Argument(help: "The passkey's name and the account's display name.") var name: String
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await options.run {
            let account = try await options.client().register(displayName: name)
            if options.json { options.show(account) } else { print("Registered and logged in as \(account.displayName).") }
        }
    }
}

struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login", abstract: "Log in with a passkey for this server.",
        discussion: """
            With --prf-salt (or --prf, for the salt the server is configured with) the passkey also evaluates its PRF \
            (WebAuthn's prf extension), and the output is printed as base64url: a secret that only this passkey gives \
            for this salt, such as the key of data encrypted end to end. The server hands it back and never keeps it.

            With --device, no authenticator is needed here: as the OpenID Connect client --client-id (one an \
            operator allowed the device flow: `latchkey admin clients add … --public --grant device_code`), the \
            command prints an address and a code, and waits while you open it on your phone, sign in there with \
            your passkey and allow it (RFC 8628). It then prints who signed in; --json prints the tokens too.
            """)
    @Option(name: .customLong("prf-salt"), help: "A PRF input, 1 to 64 bytes as base64url; a second one asks for a second output. The outputs are printed.")
    var prfSalts: [String] = []
    @Flag(name: .customLong("prf"), help: "Print the PRF output for the salt the server is configured with (latchkey serve --prf-salt).")
    var prf = false
    @Flag(name: .customLong("device"), help: "Sign in with a passkey on another device (your phone): print an address and a code, and wait.")
    var device = false
    @Option(name: .customLong("client-id"), help: "With --device: the OpenID Connect client to sign in to (default $LATCHKEY_CLIENT_ID).")
    var clientId: String?
    @Option(name: .customLong("scope"), help: "With --device: the scopes to ask for (default: openid profile).")
    var scope = "openid profile"
    @Flag(inversion: .prefixedNo, help: "With --device: draw the address as a QR code for a phone's camera (default: when printing to a terminal).")
    var qr: Bool?
    @OptionGroup var options: ClientOptions

    func validate() throws {
        if device {
            guard prfSalts.isEmpty, !prf else { throw ValidationError("--device signs in elsewhere: it has no PRF output (--prf, --prf-salt).") }
            guard (clientId ?? ProcessInfo.processInfo.environment["LATCHKEY_CLIENT_ID"]).map({ !$0.isEmpty }) == true else {
                throw ValidationError("--device needs the OpenID Connect client to sign in to: --client-id ID (or $LATCHKEY_CLIENT_ID).")
            }
        } else if clientId != nil {
            throw ValidationError("--client-id is for --device.")
        } else if qr != nil {
            throw ValidationError("--qr and --no-qr are for --device.")
        }
        guard prfSalts.count <= 2 else { throw ValidationError("--prf-salt may be given twice at most: the first input and the second.") }
        for salt in prfSalts where Self.bytes(salt) == nil {
            throw ValidationError("--prf-salt must be 1 to 64 bytes as base64url, not \"\(salt)\".")
        }
    }

    private static func bytes(_ salt: String) -> [UInt8]? {
        guard let bytes = Base64URL.decode(salt), (1...64).contains(bytes.count) else { return nil }
        return bytes
    }

    /// `--json` with PRF outputs asked for: the account and the outputs (base64url).
    private struct WithPRF: Encodable {
        let account: Account
        let prf: PRFValuesJSON
    }

    /// `--device --json`: who signed in, and the token response.
    private struct DeviceJSON: Encodable {
        let sub: String
        let name: String?
        let accessToken: String?
        let idToken: String?
        let refreshToken: String?
        let expiresIn: Int?
        let scope: String?
    }

    private func runDevice() async throws {
        try await options.run {
            let login = DeviceLogin(
                server: try options.serverURL, clientId: clientId ?? ProcessInfo.processInfo.environment["LATCHKEY_CLIENT_ID"] ?? "",
                secret: ProcessInfo.processInfo.environment["LATCHKEY_CLIENT_SECRET"].flatMap { $0.isEmpty ? nil : $0 }, scope: scope,
                http: ClientOptions.http, tell: { [json = options.json] line in if json { Output.printError(line) } else { Output.printLine(line) } },
                drawQRCode: qr ?? (isatty(options.json ? STDERR_FILENO : STDOUT_FILENO) == 1))
            let signed = try await login.run()
            if options.json {
                let tokens = signed.tokens
                try Output.printEncodable(DeviceJSON(
                    sub: signed.subject, name: signed.name, accessToken: tokens["access_token"] as? String, idToken: tokens["id_token"] as? String,
                    refreshToken: tokens["refresh_token"] as? String, expiresIn: tokens["expires_in"] as? Int, scope: tokens["scope"] as? String))
            } else {
                print("Signed in as \(signed.name ?? signed.subject) (account \(signed.subject)).")
            }
        }
    }

    func run() async throws {
        if device { return try await runDevice() }
        try await options.run {
            let inputs = prfSalts.first.flatMap(Self.bytes).map { PRFValues(first: $0, second: prfSalts.dropFirst().first.flatMap(Self.bytes)) }
            let (account, outputs) = try await options.client().login(prf: inputs)
            // The outputs are secrets: printed only when asked for.
            guard prf || inputs != nil else {
                if options.json { options.show(account) } else { print("Logged in as \(account.displayName).") }
                return
            }
            guard let outputs else {
                if !options.json { print("Logged in as \(account.displayName).") }
                Output.printError("latchkey: the passkey gave no PRF output (it cannot evaluate one, or the server asked for none: give --prf-salt).")
                throw ExitCode(1)
            }
            let encoded = PRFValuesJSON(first: Base64URL.encode(outputs.first), second: outputs.second.map { Base64URL.encode($0) })
            if options.json {
                try Output.printEncodable(WithPRF(account: account, prf: encoded))
            } else {
                print("Logged in as \(account.displayName).")
                print("PRF output: \(encoded.first)")
                if let second = encoded.second { print("Second PRF output: \(second)") }
            }
        }
    }
}

struct LogoutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "logout", abstract: "End this session.")
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await options.run {
            try await options.client().logout()
            if options.json { Output.printJSON(["loggedOut": true]) } else { print("Logged out.") }
        }
    }
}

struct AccountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "account", abstract: "Show, update or delete the logged-in account, or read its recent activity.",
        subcommands: [Show.self, Update.self, Events.self, Delete.self], defaultSubcommand: Show.self)

    struct Show: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show the account.")
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await options.run { options.show(try await options.client().account()) }
        }
    }

    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change the display name and/or the credo.")
        @Option(help: "1 to 255 characters.") var displayName: String?
        @Option(help: "Up to 255 characters.") var credo: String?
        @OptionGroup var options: ClientOptions

        func validate() throws {
            guard displayName != nil || credo != nil else { throw ValidationError("give --display-name, --credo, or both") }
        }

        func run() async throws {
            try await options.run {
                let account = try await options.client().update(displayName: displayName, credo: credo)
                if options.json { options.show(account) } else { print("Updated."); options.show(account) }
            }
        }
    }

    struct Events: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "The account's recent activity, newest first: sign-ins (refused ones too), passkey changes, sign-outs.",
            discussion: "A sign-in you do not recognise? Sign out everywhere on the web page and remove the passkey it used.")
        @Option(help: "At most this many events (1 to 100; default 50).") var limit: Int?
        @Option(help: "Start after this event: the 'More:' line (or \"next\" in --json) of the previous page.") var cursor: String?
        @OptionGroup var options: ClientOptions

        func validate() throws {
            if let limit, !(1...100).contains(limit) { throw ValidationError("--limit must be from 1 to 100.") }
        }

        func run() async throws {
            try await options.run {
                let page = try await options.client().events(cursor: cursor, limit: limit)
                if options.json { try Output.printEncodable(page) } else { print(Self.table(page)) }
            }
        }

        /// Time, event, provider, device and address, one event a line; what else the event says after.
        static func table(_ page: AccountEventPage) -> String {
            var rows = [["TIME", "EVENT", "PROVIDER", "DEVICE", "ADDRESS", "DETAIL"]]
            for event in page.events {
                let detail = event.detail.keys.sorted().map { "\($0)=\(event.detail[$0]?.description ?? "")" }.joined(separator: " ")
                rows.append([
                    ISO8601DateFormatter().string(from: event.at), event.event, event.provider ?? "-",
                    event.byOperator ? "(operator)" : event.device ?? "-", event.clientAddress ?? "-", detail,
                ].map { $0.replacingOccurrences(of: "\n", with: " ") })
            }
            let widths = rows[0].indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
            var text = rows.map { row in
                row.enumerated().map { index, cell in
                    index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
                }.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
            }.joined(separator: "\n")
            if page.events.isEmpty { text = "No events." }
            if let next = page.next { text += "\nMore: --cursor \(next)" }
            return text
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Delete the account, its passkeys and its sessions; the passkeys are also removed from this authenticator.")
        @Flag(help: "Do not ask for confirmation.") var yes = false
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await options.run {
                let client = try options.client()
                let account = try await client.account()
                let passkeys = try await client.passkeys()
                if !yes {
                    guard isatty(STDIN_FILENO) != 0 else {
                        Output.printError("latchkey: deleting an account needs confirmation: run it on a terminal, or add --yes.")
                        throw ExitCode(2)
                    }
                    print("Delete the account \"\(account.displayName)\" and its \(passkeys.count) passkey(s) on \(client.server.absoluteString)?")
                    print("This cannot be undone. The passkeys are also removed from this computer's authenticator store,")
                    print("so they will not be offered for a login that can no longer work. Type yes to delete: ", terminator: "")
                    guard readLine()?.trimmingCharacters(in: .whitespaces).lowercased() == "yes" else {
                        print("Nothing was deleted.")
                        throw ExitCode(1)
                    }
                }
                try await client.deleteAccount()
                var removedLocally = 0
                for passkey in passkeys where (try? options.authenticator.remove(credentialId: passkey.id)) == true { removedLocally += 1 }
                if options.json {
                    Output.printJSON(["deleted": true, "passkeysRemovedLocally": removedLocally])
                } else {
                    print("Deleted the account; removed \(removedLocally) passkey(s) from the local authenticator store.")
                }
            }
        }
    }
}

struct PasskeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passkeys", abstract: "List, add, rename or remove the account's passkeys.",
        subcommands: [List.self, Add.self, Rename.self, Remove.self], defaultSubcommand: List.self)

    static func show(_ passkey: Passkey) -> String {
        let used = passkey.lastUsedAt.map { ISO8601DateFormatter().string(from: $0) } ?? "never"
        var facts = [passkey.backupDescription]
        if let discoverability = passkey.discoverabilityDescription { facts.append(discoverability) }
        if passkey.prfEnabled == true { facts.append("can unlock encrypted data (PRF)") }
        return "\(passkey.id)  \(passkey.name)  \(passkey.providerName)  \(facts.joined(separator: ", "))  last used \(used)"
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the account's passkeys.")
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await options.run {
                let passkeys = try await options.client().passkeys()
                if options.json { try Output.printEncodable(passkeys) } else { passkeys.forEach { print(PasskeysCommand.show($0)) } }
            }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add a passkey named NAME to the account.")
        @Argument var name: String
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await options.run {
                let passkey = try await options.client().addPasskey(name: name)
                if options.json { try Output.printEncodable(passkey) } else { print("Added passkey \(passkey.name) (\(passkey.id)).") }
            }
        }
    }

    struct Rename: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Rename the passkey ID to NAME.")
        @Argument var id: String
        @Argument var name: String
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await options.run {
                let passkey = try await options.client().renamePasskey(id: id, name: name)
                if options.json { try Output.printEncodable(passkey) } else { print("Renamed to \(passkey.name).") }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove the passkey ID from the account (not the last one).")
        @Argument var id: String
        @OptionGroup var options: ClientOptions

        func run() async throws {
            try await options.run {
                try await options.client().removePasskey(id: id)
                _ = try? options.authenticator.remove(credentialId: id)
                if options.json { Output.printJSON(["removed": id]) } else { print("Removed passkey \(id).") }
            }
        }
    }
}

/// `latchkey approve CODE`: let a new device in — the one showing CODE after "Sign in on a new device" —
/// confirmed with this tool's passkey; or `--deny` it.
struct ApproveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "approve",
        abstract: "Let a new device sign in to this account (it shows the code), confirmed with your passkey; --deny refuses it.")
    @Argument(help: "The 8-letter code the new device shows (ABCD-EFGH).") var code: String
    @Flag(help: "Refuse the device instead.") var deny = false
    @OptionGroup var options: ClientOptions

    func run() async throws {
        try await options.run {
            let client = try options.client()
            let request = try await client.deviceRequest(code: code)
            let who = "\(request.device ?? request.userAgent ?? "an unknown browser") at \(request.clientAddress ?? "an unknown address")"
            if deny {
                try await client.denyDeviceRequest(request)
                if options.json { Output.printJSON(["denied": request.id]) } else { print("Refused the sign-in request from \(who).") }
            } else {
                try await client.approveDeviceRequest(request)
                if options.json { Output.printJSON(["approved": request.id]) } else {
                    print("Approved the sign-in request from \(who); that device can now add its own passkey.")
                }
            }
        }
    }
}
