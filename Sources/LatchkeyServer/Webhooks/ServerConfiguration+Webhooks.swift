import Foundation

extension ServerConfiguration {
    /// The webhooks' settings: the signing secret, the attempts, the first retry's delay, and endpoints only on the
    /// public internet unless `--webhook-allow-private`.
    func validateWebhooks() throws(Invalid) {
        if !webhookEndpoints.isEmpty {
            guard let webhookSecret, webhookSecret.utf8.count >= 32, Set(webhookSecret.unicodeScalars).count >= 10 else {
                throw Invalid(description: "webhooks need a signing secret of at least 32 random characters (--webhook-secret-file; openssl rand -base64 32 > FILE)")
            }
        }
        guard (1...100).contains(webhookMaxAttempts) else {
            throw Invalid(description: "a webhook delivery must be tried between 1 and 100 times, not \(webhookMaxAttempts)")
        }
        guard webhookRetryDelay >= 1, webhookRetryDelay <= 3600 else {
            throw Invalid(description: "the first webhook retry must wait between 1 and 3600 seconds, not \(webhookRetryDelay)")
        }
        if !webhookAllowPrivate, let inward = webhookEndpoints.lazy.compactMap(WebhookAddressPolicy.startupRefusal).first {
            throw Invalid(description: inward)
        }
    }
}
