import Foundation
import HTTPTypes
import NIOCore
import SoftAuthenticator
import Testing
import WebAuthn
@testable import LatchkeyServer

/// Lifetimes past what dates and cookies hold are refused at start-up, and the longest allowed ones work.
@Suite("Lifetimes and other limits in the configuration")
struct ConfigurationLimitsTests {
    @Test("session and challenge lifetimes beyond what dates and cookies hold are refused at start-up (SECURITY-FINDINGS.md, finding 4)")
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

    @Test("at the longest lifetimes, options and login still work (no trap in the time arithmetic) (SECURITY-FINDINGS.md, finding 4)")
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
}

extension ConfigurationLimitsTests {
    @Test("--android-app: PACKAGE:FINGERPRINT as keytool prints it becomes the app's android:apk-key-hash origin among the relying party's; malformed ones are refused (issue 35)")
    func androidApps() throws {
        let fingerprint = (0..<32).map { String(format: "%02x", $0) }.joined(separator: ":")
        let app = try AndroidApp(parsing: "com.example.app:" + fingerprint)
        #expect(app.packageName == "com.example.app" && app.fingerprint == Array(0..<32))
        #expect(app.fingerprintText == fingerprint.uppercased())
        #expect(app.origin == "android:apk-key-hash:AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8")
        var configuration = TestServer.configuration()
        configuration.androidApps = [app]
        #expect(configuration.relyingParty.origins == [TestServer.origin, app.origin])
        for bad in ["com.example.app", "com.example.app:" + fingerprint.dropLast(3), "app:" + fingerprint, "com.example.app:" + fingerprint + ":00",
                    "com..app:" + fingerprint, "com.ex-ample.app:" + fingerprint, "com.example.app:" + fingerprint.replacingOccurrences(of: ":", with: "")] {
            #expect(throws: ServerConfiguration.Invalid.self, "\(bad)") { try AndroidApp(parsing: bad) }
        }
    }
}

extension ConfigurationLimitsTests {
    @Test("the introspection secret must be 32 characters or more, of at least 10 different ones (SECURITY-FINDINGS-3.md §12)")
    func introspectionSecretStrength() throws {
        var configuration = TestServer.configuration()
        for weak in ["short-secret", String(repeating: "password", count: 4), String(repeating: "ab", count: 40)] {
            configuration.introspectionSecret = weak
            #expect(throws: ServerConfiguration.Invalid.self, "\(weak)") { try configuration.validate() }
        }
        configuration.introspectionSecret = "Kq3vX9tLm2PzR8wYc4NbJ7hF1sDgA6eU"
        try configuration.validate()
    }
}

