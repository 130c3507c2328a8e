import NIOCore
import Testing
@testable import LatchkeyServer

/// Which addresses webhooks may not reach without `--webhook-allow-private` (issue 29): this machine, its
/// private networks, link-local (cloud metadata at 169.254.169.254), shared and unspecified addresses,
/// and those IPv4 addresses mapped into IPv6; public addresses are reachable.
@Suite("Webhook address policy")
struct WebhookAddressPolicyTests {
    @Test("internal addresses are refused, public ones are not", arguments: [
        ("127.0.0.1", true), ("127.255.0.9", true), ("10.0.0.1", true), ("172.16.0.1", true), ("172.31.255.255", true),
        ("192.168.1.1", true), ("169.254.169.254", true), ("100.64.0.1", true), ("0.0.0.0", true), ("::1", true), ("::", true),
        ("fe80::1", true), ("fd00::1", true), ("::ffff:127.0.0.1", true), ("::ffff:10.1.2.3", true),
        ("8.8.8.8", false), ("172.32.0.1", false), ("192.169.0.1", false), ("100.128.0.1", false), ("2001:4860:4860::8888", false),
        ("::ffff:8.8.8.8", false),
    ])
    func classifies(_ text: String, _ inward: Bool) throws {
        #expect(WebhookAddressPolicy.isInternal(try SocketAddress(ipAddress: text, port: 443)) == inward)
    }

    @Test("a URL naming an internal address is refused at start; the endpoint id hides the URL")
    func startup() throws {
        let local = try #require(WebhookEndpoint(parsing: "http://127.0.0.1:9/hook"))
        #expect(WebhookAddressPolicy.startupRefusal(for: local)?.contains("--webhook-allow-private") == true)
        #expect(local.id.count == 16 && !local.id.contains("127"))
        #expect(WebhookEndpoint(parsing: "ftp://example.com/x") == nil)
        #expect(WebhookEndpoint(parsing: "https://user:pass@example.com/x") == nil)
        #expect(WebhookEndpoint(parsing: "https:///x") == nil)
    }
}
