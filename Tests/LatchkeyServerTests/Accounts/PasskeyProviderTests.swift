import Foundation
import HTTPTypes
import SoftAuthenticator
import Testing
import WebAuthn
@testable import LatchkeyServer

/// Passkey provider names and icons (the AAGUID table), the signals' arguments for native clients, and
/// the backup state as it changes from login to login (issue 15.3–15.5).
@Suite("Passkey providers, signals and backup state")
struct PasskeyProviderTests {
    static let applePasswords = "fbfc3007-154e-4ecc-8c0b-6e020557d7bd"
    static let googlePasswordManager = "ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4"

    static func authenticator(aaguid: String? = nil) throws -> SoftAuthenticator {
        var authenticator = SoftAuthenticator(store: InMemoryCredentialStore())
        if let aaguid { authenticator.aaguid = try #require(PasskeyProviders.bytes(uuid: aaguid)) }
        return authenticator
    }

    @Test("the bundled table loads and names the big providers")
    func bundledTable() throws {
        let table = try PasskeyProviders.bundled()
        #expect(table.count >= 40, "the community list names dozens of providers")
        for (aaguid, name) in [(Self.applePasswords, "Apple Passwords"), (Self.googlePasswordManager, "Google Password Manager"),
                               ("bada5566-a7aa-401f-bd96-45619a55120d", "1Password")] {
            let bytes = try #require(PasskeyProviders.bytes(uuid: aaguid))
            let provider = try #require(table.provider(aaguid: bytes))
            #expect(provider.name == name)
            let icon = try #require(provider.iconLight)
            #expect(icon.dataURL.hasPrefix("data:image/svg+xml;base64,"))
            #expect(String(decoding: icon.svg, as: UTF8.self).contains("<svg"), "the icon is decoded once, when the table loads")
        }
        #expect(table.provider(aaguid: [UInt8](repeating: 0, count: 16)) == nil, "the zero AAGUID names nobody")
    }

    @Test("a malformed table is refused as a whole, naming the entry")
    func malformedTable() {
        let cases: [(String, String)] = [
            (#"[]"#, "not a JSON object"),
            (#"{"FBFC3007-154E-4ECC-8C0B-6E020557D7BD": {"name": "x"}}"#, "not a lowercase UUID"),
            (#"{"fbfc3007-154e-4ecc-8c0b-6e020557d7bd": {"icon_light": "data:image/svg+xml;base64,AA=="}}"#, "has no name"),
            (#"{"fbfc3007-154e-4ecc-8c0b-6e020557d7bd": {"name": "x", "icon_dark": "https://example.com/x.svg"}}"#, "not a base64 SVG data URL"),
            (#"{"fbfc3007-154e-4ecc-8c0b-6e020557d7b": {"name": "x"}}"#, "not a lowercase UUID"),
        ]
        for (json, fragment) in cases {
            #expect {
                _ = try PasskeyProviders(json: Data(json.utf8))
            } throws: { error in
                (error as? PasskeyProviders.Malformed)?.description.contains(fragment) == true
            }
        }
    }

    @Test("the passkey list names the provider by the AAGUID in authenticator data, even with attestation none")
    func providerInList() async throws {
        try await TestServer.run { api in
            let phone = try Self.authenticator(aaguid: Self.applePasswords)
            let session = try await api.register("Ada", with: phone)
            // A second passkey from an authenticator the list does not know.
            let options = try api.creationOptions(try await api.send(.post, "/api/registration/options", object: [:], token: session.token))
            #expect(options.attestation == "none")
            let other = try Self.authenticator()
            let added = try await api.send(
                .post, "/api/registration/verify", json: ["credential": try other.makeCredential(options, origin: TestServer.origin)], token: session.token)
            #expect(added.status == .created)
            #expect((added.json?["passkey"] as? [String: Any])?["provider"] is NSNull)

            let passkeys = try #require(try await api.send(.get, "/api/account/passkeys", token: session.token).array)
            #expect(passkeys.count == 2)
            let first = try #require(passkeys.first)
            #expect(first["aaguid"] as? String == Self.applePasswords)
            let provider = try #require(first["provider"] as? [String: Any])
            #expect(provider["name"] as? String == "Apple Passwords")
            #expect((provider["iconLight"] as? String)?.hasPrefix("data:image/svg+xml;base64,") == true)
            #expect(passkeys[1]["provider"] is NSNull, "an AAGUID the table lacks: no provider")
            #expect(passkeys[1]["aaguid"] as? String == AAGUIDFormat.string(SoftAuthenticator.aaguid))
        }
    }

    @Test("provider icons are served as SVG files of this origin, with a policy that runs nothing")
    func icons() async throws {
        try await TestServer.run { api in
            let reply = try await api.send(.get, "/provider-icons/\(Self.googlePasswordManager)/dark.svg")
            #expect(reply.status == .ok)
            #expect(reply.headers[.contentType] == "image/svg+xml")
            #expect(reply.headers[.contentSecurityPolicy]?.contains("default-src 'none'") == true)
            #expect(reply.headers[.contentSecurityPolicy]?.contains("sandbox") == true)
            #expect(reply.text.contains("<svg"))
            let light = try await api.send(.get, "/provider-icons/\(Self.googlePasswordManager.uppercased())/light.svg")
            #expect(light.status == .ok, "the AAGUID is matched without regard to case")

            for (path, status, code) in [
                ("/provider-icons/00000000-0000-0000-0000-000000000000/light.svg", HTTPResponse.Status.notFound, "unknown_provider"),
                ("/provider-icons/not-a-uuid/light.svg", .badRequest, "invalid_aaguid"),
                ("/provider-icons/\(Self.googlePasswordManager)/icon.png", .notFound, "unknown_icon"),
            ] {
                let refused = try await api.send(.get, path)
                #expect(refused.status == status, "\(path)")
                #expect(refused.errorCode == code, "\(path)")
            }
        }
    }

    @Test("signals: the arguments a native client passes to the passkey manager")
    func signals() async throws {
        try await TestServer.run { api in
            #expect(try await api.send(.get, "/api/account/signals").status == .unauthorized)
            let session = try await api.register("Ada", with: try Self.authenticator())
            #expect(try await api.send(.patch, "/api/account", object: ["displayName": "Ada Lovelace"], token: session.token).status == .ok)
            let reply = try await api.send(.get, "/api/account/signals", token: session.token)
            #expect(reply.status == .ok)
            let signals = try #require(reply.json)
            let account = try #require(try await api.send(.get, "/api/account", token: session.token).json)
            let passkeys = try #require(try await api.send(.get, "/api/account/passkeys", token: session.token).array)
            #expect(signals["rpId"] as? String == "example.com")
            #expect(signals["userId"] as? String == account["userHandle"] as? String)
            #expect(signals["name"] as? String == "Ada Lovelace")
            #expect(signals["displayName"] as? String == "Ada Lovelace")
            #expect(signals["allAcceptedCredentialIds"] as? [String] == passkeys.compactMap { $0["id"] as? String })
        }
    }

    @Test("the backup state is refreshed at every login, and a change is dated")
    func backupStateChange() async throws {
        let clock = TestClock()
        try await TestServer.run(now: { clock.now }) { api in
            var phone = try Self.authenticator(aaguid: Self.applePasswords)
            let session = try await api.register("Ada", with: phone)
            func passkey() async throws -> [String: Any] {
                try #require(try await api.send(.get, "/api/account/passkeys", token: session.token).array?.first)
            }
            var state = try await passkey()
            #expect(state["backedUp"] as? Bool == true)
            #expect(state["backupEligible"] as? Bool == true)
            #expect(state["backupStateChangedAt"] is NSNull)

            // Same state: nothing to date.
            #expect(try await api.login(with: phone).status == .ok)
            #expect(try await passkey()["backupStateChangedAt"] is NSNull)

            // The provider stops syncing: BS clears, BE stays.
            clock.advance(by: 60)
            phone.syncPaused = true
            #expect(try await api.login(with: phone).status == .ok)
            state = try await passkey()
            #expect(state["backedUp"] as? Bool == false)
            #expect(state["backupEligible"] as? Bool == true)
            let paused = try #require(state["backupStateChangedAt"] as? String)

            // And starts again: a new date.
            clock.advance(by: 60)
            phone.syncPaused = false
            #expect(try await api.login(with: phone).status == .ok)
            state = try await passkey()
            #expect(state["backedUp"] as? Bool == true)
            let resumed = try #require(state["backupStateChangedAt"] as? String)
            #expect(resumed != paused)
        }
    }
}
