/// What Latchkey's mails say: a subject and a plain text each. The links carry their secret in the
/// fragment (`#…`), which a browser never sends to a server, so no log on the way sees it.
enum MailTexts {
    static func verification(service: String, displayName: String, link: String) -> (subject: String, text: String) {
        (
            "Confirm your email address for \(service)",
            """
            Hello \(displayName),

            Someone, hopefully you, asked \(service) to use this address for your account. To confirm it, \
            open this link in a browser where you are signed in to \(service) (or sign in when it asks):

            \(link)

            The link works once, for 24 hours. Once the address is confirmed, you can ask for a recovery \
            link at it if you ever lose all your passkeys.

            If it was not you, ignore this message: the address is not used until it is confirmed.
            """
        )
    }

    static func recovery(service: String, displayName: String, link: String, code: String, page: String) -> (subject: String, text: String) {
        (
            "Your recovery link for \(service)",
            """
            Hello \(displayName),

            Someone, hopefully you, asked for a way back into your \(service) account. Open this link to add a \
            new passkey to your account:

            \(link)

            Or type this recovery code at \(page):

            \(code)

            The link and the code work once, for the next hour; asking again replaces them. Anyone who can \
            read this message can add a passkey to your account: do not forward it.

            If it was not you, ignore this message; nothing changes unless the link is used.
            """
        )
    }
}
