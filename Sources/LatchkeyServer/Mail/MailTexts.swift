import Foundation

/// What Latchkey's mails say: a subject and a plain text each, from the message catalogues
/// (`mail.*` in `Public/locales/<code>.json`) in the account's language (`Store.language(accountId:)`),
/// else the server's `--default-language`. The links carry their secret in the fragment (`#…`), which a
/// browser never sends to a server, so no log on the way sees it.
enum MailTexts {
    static func words(_ key: String, _ language: String, _ parameters: [String: String]) -> String {
        Catalogues.shipped?.message(key, language: language, parameters) ?? key
    }

    static func verification(service: String, displayName: String, link: String, language: String = Catalogues.english) -> (subject: String, text: String) {
        (
            words("mail.verification.subject", language, ["service": service]),
            words("mail.verification.text", language, ["service": service, "name": displayName, "link": link])
        )
    }

    static func recovery(
        service: String, displayName: String, link: String, code: String, page: String, language: String = Catalogues.english
    ) -> (subject: String, text: String) {
        (
            words("mail.recovery.subject", language, ["service": service]),
            words("mail.recovery.text", language, ["service": service, "name": displayName, "link": link, "code": code, "page": page])
        )
    }
}
