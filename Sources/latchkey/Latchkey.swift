import ArgumentParser

/// The `latchkey` command-line tool.
@main
struct Latchkey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latchkey",
        abstract: "Passkeys (WebAuthn) for apps: a relying-party server and its tools.",
        subcommands: [VerifyCommand.self]
    )
}
