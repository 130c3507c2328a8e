import Foundation
import Testing
@testable import SoftAuthenticator

@Suite("File credential store")
struct FileCredentialStoreTests {
    func temporaryFile() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-store-\(UUID().uuidString)/authenticator.json")
    }

    @Test("state round-trips through the file, which is created with mode 0600")
    func roundTrip() throws {
        let url = temporaryFile()
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        let authenticator = SoftAuthenticator(store: FileCredentialStore(url: url), backupStyle: .deviceBound, attestationMode: .packed)
        _ = try authenticator.makeCredential(
            RoundTripTests.creationOptions(algorithms: [-7], challenge: RoundTripTests.challenge()), origin: RoundTripTests.origin)
        _ = try authenticator.getAssertion(RoundTripTests.requestOptions(challenge: RoundTripTests.challenge()), origin: RoundTripTests.origin)
        let reloaded = try FileCredentialStore(url: url).load()
        #expect(reloaded.passkeys.count == 1)
        #expect(reloaded.passkeys.first?.signCount == 1, "the device-bound counter persists")
        #expect(reloaded.attestationAuthority != nil)
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: url.deletingLastPathComponent().path)
        #expect(leftovers == ["authenticator.json"], "no temporary files left behind")
    }

    @Test("a missing file is an empty store")
    func missing() throws {
        #expect(try FileCredentialStore(url: temporaryFile()).load().passkeys.isEmpty)
    }

    @Test("a corrupt or foreign file is an error and is left untouched", arguments: [
        "{not json", #"{"passkeys": []}"#, #"{"format":"other","version":1,"state":{"passkeys":[]}}"#, String(repeating: "[", count: 513),
    ])
    func corrupt(contents: String) throws {
        let url = temporaryFile()
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url.deletingLastPathComponent()) }
        try Data(contents.utf8).write(to: url)
        let authenticator = SoftAuthenticator(store: FileCredentialStore(url: url))
        #expect(throws: SoftAuthenticatorError.self) {
            try authenticator.makeCredential(
                RoundTripTests.creationOptions(algorithms: [-7], challenge: RoundTripTests.challenge()), origin: RoundTripTests.origin)
        }
        #expect(try String(contentsOf: url, encoding: .utf8) == contents)
    }

    @Test("the default location follows LATCHKEY_AUTHENTICATOR_STORE, then XDG_CONFIG_HOME, then HOME")
    func defaultLocation() {
        #expect(FileCredentialStore.defaultURL(environment: ["LATCHKEY_AUTHENTICATOR_STORE": "/x/s.json", "HOME": "/h"]).path == "/x/s.json")
        #expect(FileCredentialStore.defaultURL(environment: ["XDG_CONFIG_HOME": "/cfg", "HOME": "/h"]).path == "/cfg/latchkey/authenticator.json")
        #expect(FileCredentialStore.defaultURL(environment: ["HOME": "/h"]).path == "/h/.config/latchkey/authenticator.json")
    }
}
