import Foundation

extension MailTexts {
    /// An invitation's mail (`latchkey admin invites create --send`): the link carries the code in its
    /// fragment, which no server on the way logs. `name` is who it is for (a username), when it says.
    static func invitation(service: String, name: String?, link: String, expiresAt: Date) -> (subject: String, text: String) {
        (
            "You are invited to \(service)",
            """
            Hello\(name.map { " \($0)" } ?? ""),

            You are invited to make an account at \(service). Open this link to make it — with a passkey, \
            which your device keeps and unlocks with your fingerprint, face or screen lock; there is no password:

            \(link)

            The link works until \(expiresAt.formatted(.iso8601)). Anyone who has it can use it: do not forward \
            this message.

            If you did not expect it, ignore this message; nothing is made unless the link is used.
            """
        )
    }
}

extension MailTexts {
    /// The link someone asked for with this address (`--signup-domain`).
    static func signUp(service: String, link: String, expiresAt: Date) -> (subject: String, text: String) {
        (
            "Make your account at \(service)",
            """
            Hello,

            Someone, hopefully you, asked to make an account at \(service) with this address. Open this link \
            to make it — with a passkey, which your device keeps and unlocks with your fingerprint, face or \
            screen lock; there is no password:

            \(link)

            The link works once, until \(expiresAt.formatted(.iso8601)). Anyone who can read this message can \
            use it: do not forward it.

            If it was not you, ignore this message; nothing is made unless the link is used.
            """
        )
    }
}
