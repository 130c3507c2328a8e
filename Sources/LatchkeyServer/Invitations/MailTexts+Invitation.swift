import Foundation

extension MailTexts {
    /// An invitation's mail (`latchkey admin invites create --send`): the link carries the code in its
    /// fragment, which no server on the way logs. `name` is who it is for (a username), when it says. There
    /// is no account yet: it goes in the language the operator gave (`--language`), else the server's
    /// `--default-language`.
    static func invitation(service: String, name: String?, link: String, expiresAt: Date, language: String = Catalogues.english) -> (subject: String, text: String) {
        let greeting = name.map { words("mail.invitation.greeting-name", language, ["name": $0]) } ?? words("mail.invitation.greeting", language, [:])
        return (
            words("mail.invitation.subject", language, ["service": service]),
            words("mail.invitation.text", language, [
                "greeting": greeting, "service": service, "link": link, "expires": expiresAt.formatted(.iso8601),
            ])
        )
    }
}

extension MailTexts {
    /// The link someone asked for with this address (`--signup-domain`), in the language of the page they
    /// asked on (its picker's choice, else its Accept-Language), else the server's `--default-language`.
    static func signUp(service: String, link: String, expiresAt: Date, language: String = Catalogues.english) -> (subject: String, text: String) {
        (
            words("mail.signup.subject", language, ["service": service]),
            words("mail.signup.text", language, ["service": service, "link": link, "expires": expiresAt.formatted(.iso8601)])
        )
    }
}
