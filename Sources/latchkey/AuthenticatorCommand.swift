import ArgumentParser
import Foundation
import SoftAuthenticator
import WebAuthn

/// `latchkey authenticator`: the software passkey provider from the command line, like a platform's
/// passkey UI plus its Passwords app.
struct AuthenticatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authenticator",
        abstract: "Make and use passkeys with Latchkey's software authenticator.",
        discussion: """
            Passkeys are kept in one file (mode 0600): --store, else $LATCHKEY_AUTHENTICATOR_STORE, else \
            $XDG_CONFIG_HOME/latchkey/authenticator.json (~/.config/latchkey/authenticator.json).
            """,
        subcommands: [Create.self, Get.self, List.self, Remove.self, AttestationRoot.self]
    )

    struct StoreOptions: ParsableArguments {
        @Option(help: "The credential store file.")
        var store: String?

        func authenticator(
            userVerified: Bool = true, style: SoftAuthenticator.BackupStyle = .synced, attestation: SoftAuthenticator.AttestationMode = .self
        ) -> SoftAuthenticator {
            let url = store.map { URL(fileURLWithPath: $0) } ?? FileCredentialStore.defaultURL()
            return SoftAuthenticator(
                store: FileCredentialStore(url: url, beforeRename: FaultInjection.stallBeforeRename()),
                userVerified: userVerified, backupStyle: style, attestationMode: attestation)
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a passkey: reads PublicKeyCredentialCreationOptionsJSON (bare or as {\"publicKey\": …}) from stdin, prints RegistrationResponseJSON.")

        @Option(help: "The origin of the page asking, e.g. https://example.com.")
        var origin: String
        @Option(help: "Attestation when the relying party asks for it: none, self or packed (x5c from this authenticator's CA).")
        var attestation: String = "self"
        @Flag(help: "Make a device-bound key (BE=BS=0, counting signatures) instead of a synced passkey.")
        var deviceBound = false
        @Flag(help: "Act as if the user failed verification (the UV switch off).")
        var noUserVerification = false
        @Option(help: AAGUIDOption.help)
        var aaguid: String?
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            guard let mode = SoftAuthenticator.AttestationMode(rawValue: attestation) else {
                throw ValidationError("--attestation must be none, self or packed")
            }
            let options: PublicKeyCredentialCreationOptionsJSON = try OptionsInput.read()
            var authenticator = storeOptions.authenticator(
                userVerified: !noUserVerification, style: deviceBound ? .deviceBound : .synced, attestation: mode)
            if let aaguid = try AAGUIDOption.bytes(aaguid) { authenticator.aaguid = aaguid }
            try AuthenticatorOutput.run { try Output.printEncodable(try authenticator.makeCredential(options, origin: origin)) }
        }
    }

    struct Get: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign in: reads PublicKeyCredentialRequestOptionsJSON (bare or as {\"publicKey\": …}) from stdin, prints AuthenticationResponseJSON.")

        @Option(help: "The origin of the page asking.")
        var origin: String
        @Option(help: "Use this credential (base64url id) when several passkeys fit; default: the most recently used.")
        var credential: String?
        @Flag(help: "Act as if the user failed verification (the UV switch off).")
        var noUserVerification = false
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            let options: PublicKeyCredentialRequestOptionsJSON = try OptionsInput.read()
            let authenticator = storeOptions.authenticator(userVerified: !noUserVerification)
            var chooser: SoftAuthenticator.Chooser?
            if let wanted = credential {
                chooser = { candidates in candidates.first { $0.credentialId == wanted } }
            }
            try AuthenticatorOutput.run { try Output.printEncodable(try authenticator.getAssertion(options, origin: origin, chooser: chooser)) }
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the stored passkeys.")
        @Flag(help: "Print JSON (without private keys).")
        var json = false
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            try AuthenticatorOutput.run {
                let passkeys = try storeOptions.authenticator().passkeys()
                if json {
                    Output.printJSON(passkeys.map(PasskeySummary.object(for:)))
                } else if passkeys.isEmpty {
                    print("No passkeys.")
                } else {
                    for passkey in passkeys { print(PasskeySummary.line(for: passkey)) }
                }
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a stored passkey by its credential id.")
        @Argument(help: "The credential id (base64url), as `list` shows it.")
        var id: String
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            try AuthenticatorOutput.run {
                guard try storeOptions.authenticator().remove(credentialId: id) else {
                    Output.printError("latchkey authenticator: no passkey with id \(id); see `latchkey authenticator list`.")
                    throw ExitCode(1)
                }
                print("Removed passkey \(id).")
            }
        }
    }

    struct AttestationRoot: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "attestation-root", abstract: "Print this authenticator's attestation root certificate (PEM), for a relying party's trust anchors.")
        @OptionGroup var storeOptions: StoreOptions

        func run() async throws {
            try AuthenticatorOutput.run { print(try storeOptions.authenticator().attestationRootPEM(), terminator: "") }
        }
    }
}

/// Options JSON from stdin: bare, or wrapped as `{"publicKey": …}` the way servers send it.
enum OptionsInput {
    static func read<T: Decodable>() throws -> T {
        let data = FileHandle.standardInput.readDataToEndOfFile()
        guard (try? JSONValue.validate(data)) != nil else {
            Output.printError("latchkey authenticator: standard input is not JSON (or nests deeper than 64 levels).")
            throw ExitCode(2)
        }
        let decoder = JSONDecoder()
        if let wrapped = try? decoder.decode([String: T].self, from: data), let options = wrapped["publicKey"] { return options }
        do {
            return try decoder.decode(T.self, from: data)
        } catch {
            Output.printError("latchkey authenticator: standard input is not \(T.self) JSON (bare or as {\"publicKey\": …}).")
            throw ExitCode(2)
        }
    }
}

/// Authenticator refusals are exit status 1 with the reason, named like the browser's DOMException.
enum AuthenticatorOutput {
    static func run(_ body: () throws -> Void) throws {
        do {
            try body()
        } catch let error as SoftAuthenticatorError {
            Output.printError("latchkey authenticator: \(error.domExceptionName): \(error).")
            throw ExitCode(1)
        }
    }
}

enum PasskeySummary {
    static func object(for passkey: StoredPasskey) -> [String: Any] {
        var object: [String: Any] = [
            "id": passkey.credentialId, "rpId": passkey.rpId, "userName": passkey.userName,
            "userDisplayName": passkey.userDisplayName, "userHandle": passkey.userHandle, "algorithm": passkey.algorithm,
            "signCount": passkey.signCount, "backedUp": passkey.backedUp, "discoverable": passkey.discoverable,
            "createdAt": ISO8601DateFormatter().string(from: passkey.createdAt),
        ]
        if let used = passkey.lastUsedAt { object["lastUsedAt"] = ISO8601DateFormatter().string(from: used) }
        return object
    }

    static func line(for passkey: StoredPasskey) -> String {
        let used = passkey.lastUsedAt.map { ISO8601DateFormatter().string(from: $0) } ?? "never"
        return "\(passkey.credentialId)  \(passkey.rpId)  \(passkey.userName) (\(passkey.userDisplayName))  last used \(used)"
    }
}

/// The crash-safety test's hook: with LATCHKEY_TEST_STALL_BEFORE_RENAME=SECONDS set, a store write
/// pauses after the new file is on disk and before it replaces the old one, so the test can kill the
/// process at exactly that moment.
enum FaultInjection {
    static func stallBeforeRename() -> (@Sendable () -> Void)? {
        guard let value = ProcessInfo.processInfo.environment["LATCHKEY_TEST_STALL_BEFORE_RENAME"], let seconds = Double(value) else {
            return nil
        }
        return { Thread.sleep(forTimeInterval: seconds) }
    }
}
