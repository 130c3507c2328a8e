import Foundation

extension ServerConfiguration {
    /// Mail's settings: the SMTP server's URL (`SMTPServer`), the sender, and what needs mail to work.
    func validateMail() throws(Invalid) {
        if let smtpURL { _ = try SMTPServer(parsing: smtpURL) }
        if let smtpFrom, MailMessage.Mailbox.parse(smtpFrom) == nil {
            throw Invalid(description: "the mails' sender (--smtp-from) must be an address or Name <address>, not \"\(smtpFrom)\"")
        }
        if smtpFrom == nil, smtpURL != nil, MailMessage.Mailbox.parse("noreply@\(rpId)") == nil {
            throw Invalid(description: "give the mails' sender (--smtp-from): noreply@\(rpId) is not an address")
        }
        if recoveryEmail, smtpURL == nil {
            throw Invalid(description: "--recovery-email needs --smtp-url: recovery links are mailed through it")
        }
    }

    /// The SMTP server, when one is configured (and valid: `validate()` checked it).
    var smtpServer: SMTPServer? { smtpURL.flatMap { try? SMTPServer(parsing: $0) } }

    /// The mails' sender: `smtpFrom`, else the RP name at `noreply@` the RP ID.
    var mailSender: MailMessage.Mailbox? {
        if let smtpFrom { return MailMessage.Mailbox.parse(smtpFrom) }
        return MailMessage.Mailbox.parse("noreply@\(rpId)").map { MailMessage.Mailbox(name: rpName, address: $0.address) }
    }
}
