import Crypto
import Foundation

/// A URL the audit trail's events are delivered to (`--webhook-url`). Its id — the first 8 bytes of the
/// URL's SHA-256, in hex — names it in the outbox (`webhook_outbox.endpoint`): the same on every instance
/// configured with the same URL, and no credential a URL may carry reaches the database.
public struct WebhookEndpoint: Sendable, Equatable, CustomStringConvertible {
    public let url: URL
    public let id: String

    /// Parses an http or https URL with a host; nil for anything else.
    public init?(parsing text: String) {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
              let host = url.host, !host.isEmpty, url.user == nil, url.password == nil
        else { return nil }
        self.url = url
        self.id = SHA256.hash(data: Array(text.utf8)).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    public var description: String { url.absoluteString }
}
