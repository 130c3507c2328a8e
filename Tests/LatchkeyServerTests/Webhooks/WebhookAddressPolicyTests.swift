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

    /// Fourth review, S4-9: the ranges the policy missed. An IPv4 address inside NAT64 (64:ff9b::/96) or
    /// 6to4 (2002::/16) is judged as that IPv4 address; IPv4-compatible (::/96), site-local, multicast and
    /// everything else outside global unicast (2000::/3) is refused; so are IPv4's IETF protocol block,
    /// benchmarking, multicast, reserved and broadcast ranges.
    @Test("the fourth review's ranges: NAT64, 6to4, IPv4-compatible, non-global IPv6, and IPv4's special blocks", arguments: [
        // NAT64, well-known prefix: the embedded IPv4 address decides.
        ("64:ff9b::7f00:1", true), ("64:ff9b::a9fe:a9fe", true), ("64:ff9b::a00:1", true), ("64:ff9b::808:808", false),
        // NAT64, local-use prefix: this network's own translator, never the public internet.
        ("64:ff9b:1::808:808", true), ("64:ff9b:1:ffff::1", true),
        // 6to4: the IPv4 address in bits 16-47.
        ("2002:7f00:1::", true), ("2002:a9fe:a9fe::1", true), ("2002:c0a8:101::1", true), ("2002:808:808::1", false),
        // IPv4-compatible, site-local, multicast, and other space outside 2000::/3.
        ("::127.0.0.1", true), ("::8.8.8.8", true), ("::2", true), ("fec0::1", true), ("feff::1", true),
        ("ff02::1", true), ("ff0e::1", true), ("100::1", true), ("4000::1", true), ("e000::1", true), ("1fff::1", true),
        ("2606:4700:4700::1111", false), ("3ffe::1", false),
        // IPv4: IETF protocol assignments, benchmarking, multicast, reserved, broadcast.
        ("192.0.0.1", true), ("192.0.0.170", true), ("192.0.1.1", false), ("198.18.0.1", true), ("198.19.255.255", true),
        ("198.17.255.255", false), ("198.20.0.1", false), ("224.0.0.1", true), ("239.255.255.250", true), ("240.0.0.1", true),
        ("255.255.255.254", true), ("255.255.255.255", true), ("223.255.255.255", false),
        // The same, mapped into IPv6.
        ("::ffff:224.0.0.1", true), ("::ffff:198.18.0.1", true), ("::ffff:255.255.255.255", true),
    ])
    func classifiesTheMissedRanges(_ text: String, _ inward: Bool) throws {
        #expect(WebhookAddressPolicy.isInternal(try SocketAddress(ipAddress: text, port: 443)) == inward, "\(text)")
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
