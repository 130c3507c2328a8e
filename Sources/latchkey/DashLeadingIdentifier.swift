import WebAuthn

/// Refuses a credential id that begins with "-" and is not behind `--`, before the argument parser sees it.
///
/// Credential ids are base64url, so about one in 32 begins with "-". The parser reads such an id as a
/// group of short flags; when the group holds an `h` (`-RuAF…h…`) it prints help and exits 0 having
/// removed or renamed nothing, which a script takes for success. Putting `--` before the id makes the
/// parser take it as it is; this check says so and exits 2 (called wrongly) instead of guessing where the
/// id was meant to go.
enum DashLeadingIdentifier {
    /// The commands whose positional arguments are credential ids (and, for rename, a name after it).
    static let commands: [[String]] = [["authenticator", "remove"], ["passkeys", "remove"], ["passkeys", "rename"]]

    /// A credential id of at least 16 bytes is at least 22 base64url characters; no flag group or option
    /// of these commands is that long.
    static let shortestIdentifier = 22

    /// The message to refuse `arguments` (without the program name) with, or nil when they are fine.
    static func refusal(for arguments: [String]) -> String? {
        guard let command = commands.first(where: { arguments.starts(with: $0) }) else { return nil }
        for argument in arguments.dropFirst(command.count) {
            if argument == "--" { return nil }
            if looksLikeIdentifier(argument) {
                let name = (["latchkey"] + command).joined(separator: " ")
                return "\(name): \(argument) begins with \"-\" and would be read as options; put -- before it: \(name) -- \(argument)"
            }
        }
        return nil
    }

    /// Begins with "-", is long enough to be an id and decodes as base64url. A long option (`--json`) is
    /// lowercase letters and dashes, so an argument beginning with "--" counts only when it has some other
    /// base64url character, as a random id of this length all but surely does.
    static func looksLikeIdentifier(_ argument: String) -> Bool {
        guard argument.hasPrefix("-"), argument.utf8.count >= shortestIdentifier,
              Base64URL.decode(argument) != nil else { return false }
        guard argument.hasPrefix("--") else { return true }
        return argument.utf8.contains { !(UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) && $0 != UInt8(ascii: "-") }
    }
}
