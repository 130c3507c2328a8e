import Logging
import Metrics

/// Sends Latchkey's mails through its SMTP server (`SMTPClient`) from `from`, trying a passing failure
/// (a time-out, a closed connection, a 4xx) again after `retryDelays`; a permanent one (a 5xx, TLS that
/// fails) is given up at once, after one log line. Failures are logged (without the recipient) and counted
/// in `latchkey_mail_failures_total`.
struct MailSender: Sendable {
    let client: SMTPClient
    let from: MailMessage.Mailbox
    let logger: Logger
    let failures: Counter
    var retryDelays: [Duration] = [.seconds(2), .seconds(20)]

    init(client: SMTPClient, from: MailMessage.Mailbox, logger: Logger, metrics: any MetricsFactory) {
        self.client = client
        self.from = from
        self.logger = logger
        failures = Counter(label: "latchkey_mail_failures_total", factory: metrics)
    }

    /// Whether the server took the message.
    func send(to: EmailAddress, subject: String, text: String, purpose: String) async -> Bool {
        let message = MailMessage(from: from, to: to, subject: subject, text: text)
        for attempt in 0...retryDelays.count {
            do {
                try await client.send(message)
                logger.info("mail sent", metadata: ["purpose": "\(purpose)", "server": "\(client.server)"])
                return true
            } catch {
                let last = error.isPermanent || attempt == retryDelays.count
                logger.warning(last ? "mail not sent" : "mail not sent yet, trying again", metadata: [
                    "purpose": "\(purpose)", "server": "\(client.server)", "error": "\(error)", "attempt": "\(attempt + 1)",
                ])
                if last { break }
                do { try await Task.sleep(for: retryDelays[attempt]) } catch { break }
            }
        }
        failures.increment()
        return false
    }
}
