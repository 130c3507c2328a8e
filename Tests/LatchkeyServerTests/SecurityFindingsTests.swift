import Foundation
import HTTPTypes
import NIOCore
import SoftAuthenticator
import Testing
import WebAuthn
@testable import LatchkeyServer

/// One test (or more) per finding of ../shared/SECURITY-FINDINGS.md that the server owns; the numbers are
/// the file's. The crash shapes (1–3) and the CBOR and attestation caps (5, 6) have their own suites
/// (HostileBodyTests, CBORDecoderTests, HostileAttestationTests); the real binary gets the same shapes in
/// Tests/Hostile.
@Suite("Security findings")
struct SecurityFindingsTests {
    @Test("4: session and challenge lifetimes beyond what dates and cookies hold are refused at start-up")
    func lifetimes() throws {
        for (session, challenge) in [(1e20, 300.0), (86_400 * 401, 300), (86_400, 1e300), (86_400, 3601), (86_400, -1)] {
            var configuration = TestServer.configuration()
            configuration.sessionTTL = session
            configuration.ceremonyTTL = challenge
            #expect(throws: ServerConfiguration.Invalid.self, "\(session) / \(challenge)") { try configuration.validate() }
        }
        var longest = TestServer.configuration()
        longest.sessionTTL = ServerConfiguration.maximumSessionTTL
        longest.ceremonyTTL = ServerConfiguration.maximumCeremonyTTL
        try longest.validate()
    }

    @Test("4: at the longest lifetimes, options and login still work (no trap in the time arithmetic)")
    func longestLifetimesWork() async throws {
        let configuration = TestServer.configuration {
            $0.sessionTTL = ServerConfiguration.maximumSessionTTL
            $0.ceremonyTTL = ServerConfiguration.maximumCeremonyTTL
        }
        try await TestServer.run(configuration) { api in
            let authenticator = SoftAuthenticator(store: InMemoryCredentialStore())
            _ = try await api.register("Ada", with: authenticator)
            #expect(try await api.login(with: authenticator).status == .ok)
        }
    }

    @Test("7: //api/… and /api//… reach the API routes and are rate limited with them", arguments: ["//api/login/options", "/api//login/options", "/api/login//options"])
    func limiterBypass(path: String) async throws {
        try await TestServer.run(TestServer.configuration { $0.rateLimit = 3 }, over: .live) { client in
            // The odd spelling reaches the route (the router ignores empty segments) …
            #expect(try await client.send(.post, path).status == .ok)
            #expect(try await client.send(.post, "/api/login/options").status == .ok)
            #expect(try await client.send(.post, "/api/login/options").status == .ok)
            // … and counts against the same bucket: the fourth request is refused whatever its spelling.
            let refused = try await client.send(.post, path)
            #expect(refused.status == .tooManyRequests)
            #expect(refused.errorCode == "rate_limited")
        }
    }

    @Test("8: connections over the per-client bound are refused when accepted, and counted back when closed")
    func connectionLimiter() throws {
        let limiter = ConnectionLimiter(total: 3, perClient: 2)
        let a = try SocketAddress(ipAddress: "203.0.113.7", port: 1000)
        let b = try SocketAddress(ipAddress: "203.0.113.8", port: 1000)
        let sameSubnet = try SocketAddress(ipAddress: "2001:db8:1:2::1", port: 1), neighbour = try SocketAddress(ipAddress: "2001:db8:1:2::99", port: 2)
        let first = try #require(Self.open(limiter, a))
        _ = try #require(Self.open(limiter, a))
        #expect(Self.open(limiter, a) == nil, "a third from one address")
        first.closed()
        first.closed()
        #expect(limiter.openConnections == 1, "a second close gives nothing back twice")
        _ = try #require(Self.open(limiter, a), "a's closed connection made room")
        _ = try #require(Self.open(limiter, b))

        let v6 = ConnectionLimiter(total: 100, perClient: 1)
        _ = try #require(Self.open(v6, sameSubnet))
        #expect(Self.open(v6, neighbour) == nil, "an IPv6 /64 is one client")
    }

    @Test("Review 3, finding 5: at the total bound the connection that waited longest without a request makes room; one answering a request never does")
    func connectionLimiterEvictsTheLongestWaiting() throws {
        let closed = ClosedConnections()
        let limiter = ConnectionLimiter(total: 3, perClient: nil)
        let address = try SocketAddress(ipAddress: "203.0.113.7", port: 1)
        let idle = try #require(Self.open(limiter, address, closed, "idle"))
        let busy = try #require(Self.open(limiter, address, closed, "busy"))
        let halfSent = try #require(Self.open(limiter, address, closed, "half-sent"))
        busy.record(.answering)
        halfSent.record(.receiving)
        // idle has waited longest (opened first, nothing since): it goes, the newcomer stays.
        let newcomer = try #require(Self.open(limiter, address, closed, "newcomer"))
        #expect(closed.all == ["idle"])
        #expect(limiter.openConnections == 3)
        idle.closed() // its close arrives later: nothing is given back twice
        #expect(limiter.openConnections == 3)
        // Next in line: half-sent (receiving since before the newcomer came), not the busy one.
        newcomer.record(.answering)
        _ = try #require(Self.open(limiter, address, closed, "second newcomer"))
        #expect(closed.all == ["idle", "half-sent"])
        #expect(limiter.evictedConnections == 2)
        // Every slot answering a request: a newcomer is refused, nobody is closed.
        let full = ConnectionLimiter(total: 1, perClient: nil)
        let answering = try #require(Self.open(full, address, closed, "answering"))
        answering.record(.answering)
        #expect(Self.open(full, address) == nil)
        #expect(!closed.all.contains("answering"))
        answering.record(.waiting)
        _ = try #require(Self.open(full, address), "once answered, it waits like any other")
        #expect(closed.all.last == "answering")
    }

    @Test("8: idle time-out and connection bounds come from the configuration; nonsense is refused")
    func connectionConfiguration() throws {
        var configuration = TestServer.configuration()
        #expect(configuration.idleTimeAmount == .seconds(30))
        #expect(configuration.connectionLimiter?.total == 4096)
        #expect(configuration.connectionLimiter?.perClient == 256)
        configuration.trustForwardedFor = true
        #expect(configuration.connectionLimiter?.perClient == nil, "behind a proxy every connection is the proxy's")
        #expect(configuration.headTimeAmount == .seconds(10))
        configuration.idleTimeout = 5
        #expect(configuration.headTimeAmount == .seconds(5), "never longer than the idle time-out")
        configuration.idleTimeout = 0
        configuration.maxConnections = 0
        configuration.maxConnectionsPerClient = 0
        #expect(configuration.idleTimeAmount == nil)
        #expect(configuration.connectionLimiter == nil)
        for bad in [-1.0, 3601] {
            configuration.idleTimeout = bad
            #expect(throws: ServerConfiguration.Invalid.self) { try configuration.validate() }
        }
    }

    @Test("9: text fields are capped in bytes as well as characters: one 60 KB \"character\" is refused")
    func byteCaps() async throws {
        try await TestServer.run { api in
            let huge = "e" + String(repeating: "\u{301}", count: 30_000) // one grapheme cluster, 60 001 bytes
            #expect(huge.count == 1)
            var reply = try await api.send(.post, "/api/registration/options", object: ["displayName": huge])
            #expect(reply.status == .unprocessableContent)
            #expect(reply.text.contains("1020 bytes"), "\(reply.text)")
            let session = try await api.register("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            reply = try await api.send(.patch, "/api/account", object: ["credo": huge], token: session.token)
            #expect(reply.status == .unprocessableContent)
            reply = try await api.send(.patch, "/api/account", object: ["credo": "a" + String(repeating: "\u{301}", count: 510)], token: session.token)
            #expect(reply.status == .unprocessableContent, "1 021 bytes")
            reply = try await api.send(.patch, "/api/account", object: ["credo": String(repeating: "😀", count: 255)], token: session.token)
            #expect(reply.status == .ok, "255 four-byte characters are exactly at both limits")
            let passkeys = try await api.send(.get, "/api/account/passkeys", token: session.token)
            let id = try #require(passkeys.array?.first?["id"] as? String)
            reply = try await api.send(.patch, "/api/account/passkeys/\(id)", object: ["name": "e" + String(repeating: "\u{301}", count: 200)], token: session.token)
            #expect(reply.status == .unprocessableContent)
        }
    }

    @Test("11: flooding the rate limiter's table from many addresses does not reset a limited client")
    func limiterFlood() throws {
        let clock = RateLimitTests.ManualClock()
        let limiter = RateLimiter(requestsPerMinute: 10, maximumClients: 100, clock: clock.read)
        let attacker = try #require(RateLimitClient(text: "198.51.100.1"))
        for _ in 0..<10 { _ = limiter.admit(attacker) }
        #expect(limiter.admit(attacker) != .allowed)
        for index in 0..<10_000 {
            _ = limiter.admit(.v6Prefix(UInt64(index) << 16))
        }
        #expect(limiter.clientCount <= 100)
        #expect(limiter.admit(attacker) != .allowed, "still limited after 10 000 other addresses")
    }

    @Test("12: the API refuses control characters in a credo (NUL among them), keeps tabs and line breaks")
    func nulRefused() async throws {
        try await TestServer.run { api in
            let session = try await api.register("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            var reply = try await api.send(.patch, "/api/account", object: ["credo": "before\u{0}after"], token: session.token)
            #expect(reply.status == .unprocessableContent)
            reply = try await api.send(.patch, "/api/account", object: ["credo": "one\ttwo\r\nthree"], token: session.token)
            #expect(reply.status == .ok)
            #expect(try await api.send(.get, "/api/account", token: session.token).json?["credo"] as? String == "one\ttwo\r\nthree")
        }
    }

    @Test("14: a cookie-authenticated change needs an allowed Origin, or Sec-Fetch-Site: same-origin; reads do not")
    func csrf() async throws {
        try await TestServer.run { api in
            let session = try await api.register("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            let cookie = "\(SessionCookie.name(secure: true))=\(session.token)"
            let fetchSite = try #require(HTTPField.Name("Sec-Fetch-Site"))
            var reply = try await api.send(.patch, "/api/account", body: Data(#"{"credo":"x"}"#.utf8), headers: [.cookie: cookie])
            #expect(reply.status == .forbidden)
            #expect(reply.errorCode == "origin_required")
            reply = try await api.send(.patch, "/api/account", body: Data(#"{"credo":"x"}"#.utf8), headers: [.cookie: cookie, fetchSite: "cross-site"])
            #expect(reply.status == .forbidden)
            reply = try await api.send(.patch, "/api/account", body: Data(#"{"credo":"x"}"#.utf8), headers: [.cookie: cookie, fetchSite: "same-origin"])
            #expect(reply.status == .ok)
            reply = try await api.send(.patch, "/api/account", body: Data(#"{"credo":"y"}"#.utf8), headers: [.cookie: cookie, .origin: TestServer.origin])
            #expect(reply.status == .ok)
            #expect(try await api.send(.get, "/api/account", headers: [.cookie: cookie]).status == .ok, "reads need neither")
            // Over https the cookie is __Host- prefixed; the unprefixed name is not read.
            #expect(try await api.send(.get, "/api/account", headers: [.cookie: "latchkey_session=\(session.token)"]).status == .unauthorized)
            // The bearer token needs no Origin: other sites cannot make a browser send it.
            #expect(try await api.send(.patch, "/api/account", object: ["credo": "z"], token: session.token).status == .ok)
        }
    }

    @Test("15: removing a passkey ends the sessions it opened (but the caller's); sign out everywhere ends them all")
    func sessionsFollowPasskeys() async throws {
        try await TestServer.run { api in
            let phone = SoftAuthenticator(store: InMemoryCredentialStore())
            let laptop = SoftAuthenticator(store: InMemoryCredentialStore())
            let first = try await api.register("Ada", with: phone)
            // A second passkey on the laptop; a session opened with each.
            let options = try api.creationOptions(try await api.send(.post, "/api/registration/options", object: ["name": "Laptop"], token: first.token))
            let added = try await api.send(.post, "/api/registration/verify", json: ["credential": try laptop.makeCredential(options, origin: TestServer.origin)], token: first.token)
            #expect(added.status == .created)
            let laptopSession = try #require(try await api.login(with: laptop).json?["token"] as? String)
            let phoneSession = try #require(try await api.login(with: phone).json?["token"] as? String)
            let passkeys = try #require(try await api.send(.get, "/api/account/passkeys", token: first.token).array)
            let laptopId = try #require(passkeys.first { $0["name"] as? String == "Laptop" }?["id"] as? String)
            // Removed from the phone's session: the laptop's session ends, the phone's go on.
            #expect(try await api.send(.delete, "/api/account/passkeys/\(laptopId)", token: phoneSession).status == .noContent)
            #expect(try await api.send(.get, "/api/account", token: laptopSession).status == .unauthorized)
            #expect(try await api.send(.get, "/api/account", token: phoneSession).status == .ok)
            #expect(try await api.send(.get, "/api/account", token: first.token).status == .ok)
            // Sign out everywhere.
            #expect(try await api.send(.post, "/api/logout/everywhere", token: phoneSession).status == .noContent)
            #expect(try await api.send(.get, "/api/account", token: phoneSession).status == .unauthorized)
            #expect(try await api.send(.get, "/api/account", token: first.token).status == .unauthorized)
            #expect(try await api.login(with: phone).status == .ok, "the passkey itself still works")
        }
    }

    @Test("info: names refuse bidirectional overrides (right-to-left text is fine); stored transports are the known ones")
    func infoFindings() async throws {
        #expect(throws: APIError.self) { try InputRules.displayName("Ada\u{202E}moc.elpmaxe") }
        #expect(throws: APIError.self) { try InputRules.passkeyName("Phone\u{2066}x\u{2069}") }
        #expect(try InputRules.displayName("עדה לאבלייס") == "עדה לאבלייס")
        #expect(try InputRules.displayName("Ada\u{200F}") == "Ada\u{200F}", "a right-to-left mark is not an override")
        #expect(InputRules.transports(["internal", "hybrid", "internal", "usb,nfc", String(repeating: "x", count: 10_000), "cable"]) == ["internal", "hybrid"])
    }

    @Test("16: a passkey says whether its attestation was verified; without anchors it was not")
    func attestationVerifiedFlag() async throws {
        try await TestServer.run(TestServer.configuration { $0.attestation = .direct }) { api in
            let session = try await api.register("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            let passkey = try #require(try await api.send(.get, "/api/account/passkeys", token: session.token).array?.first)
            #expect(passkey["attestationVerified"] as? Bool == false)
            #expect(passkey["attestationFormat"] as? String != nil)
        }
    }
}

/// The names of the connections a `ConnectionLimiter` closed, in order.
final class ClosedConnections: @unchecked Sendable {
    private let lock = NSLock()
    private var names: [String] = []
    func add(_ name: String) {
        lock.lock()
        names.append(name)
        lock.unlock()
    }
    var all: [String] {
        lock.lock()
        defer { lock.unlock() }
        return names
    }
}

extension SecurityFindingsTests {
    /// A connection counted by `limiter`; its close is recorded in `closed` under `name`.
    static func open(_ limiter: ConnectionLimiter, _ address: SocketAddress, _ closed: ClosedConnections? = nil, _ name: String = "") -> ConnectionLimiter.Connection? {
        limiter.open(from: address, close: { closed?.add(name) })
    }
}

extension SecurityFindingsTests {
    @Test("review 3, finding 11: adding a passkey needs a session from the last 10 minutes; an older one gets 403 recent_sign_in_required until a fresh login")
    func addPasskeyNeedsRecentSignIn() async throws {
        let clock = TestClock()
        try await TestServer.run(now: { clock.now }) { api in
            let phone = SoftAuthenticator(store: InMemoryCredentialStore())
            let session = try await api.register("Ada", with: phone)
            #expect(try await api.send(.post, "/api/registration/options", object: [:], token: session.token).status == .ok)
            clock.advance(by: 10 * 60 + 1)
            let stale = try await api.send(.post, "/api/registration/options", object: [:], token: session.token)
            #expect(stale.status == .forbidden && stale.errorCode == "recent_sign_in_required", "\(stale.text)")
            #expect(try await api.send(.get, "/api/account", token: session.token).status == .ok, "the session itself still works")
            let login = try await api.login(with: phone)
            let fresh = try #require(login.json?["token"] as? String)
            #expect(try await api.send(.post, "/api/registration/options", object: [:], token: fresh).status == .ok)
        }
    }

    @Test("review 3, findings 2 and 3: an account holds at most max-passkeys-per-account; past it add-passkey options are 409 too_many_passkeys")
    func passkeyCap() async throws {
        let configuration = TestServer.configuration { $0.maxPasskeysPerAccount = 2 }
        try await TestServer.run(configuration) { api in
            let session = try await api.register("Ada", with: SoftAuthenticator(store: InMemoryCredentialStore()))
            let options = try api.creationOptions(try await api.send(.post, "/api/registration/options", object: [:], token: session.token))
            let credential = try SoftAuthenticator(store: InMemoryCredentialStore()).makeCredential(options, origin: TestServer.origin)
            #expect(try await api.send(.post, "/api/registration/verify", json: ["credential": credential]).status == .forbidden,
                    "another account's ceremony, anonymously: wrong_account")
            let added = try await api.send(.post, "/api/registration/verify", body: try JSONEncoder().encode(["credential": credential]), token: session.token)
            #expect(added.status == .created, "\(added.text)")
            let full = try await api.send(.post, "/api/registration/options", object: [:], token: session.token)
            #expect(full.status == .conflict && full.errorCode == "too_many_passkeys", "\(full.text)")
        }
        var bad = TestServer.configuration()
        for value in [0, 10_001] {
            bad.maxPasskeysPerAccount = value
            #expect(throws: ServerConfiguration.Invalid.self) { try bad.validate() }
        }
    }
}

