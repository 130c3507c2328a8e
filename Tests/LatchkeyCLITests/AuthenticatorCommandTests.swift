import Foundation
import Testing

@Suite("latchkey authenticator")
struct AuthenticatorCommandTests {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-cli-\(UUID().uuidString)")
    var store: URL { directory.appendingPathComponent("authenticator.json") }
    var environment: [String: String] { ["LATCHKEY_AUTHENTICATOR_STORE": store.path] }

    static func creationOptions(user: String = "dXNlcg") -> Data {
        Data("""
            {"publicKey":{"rp":{"id":"localhost","name":"Test"},"user":{"id":"\(user)","name":"ada","displayName":"Ada"},
            "challenge":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8","pubKeyCredParams":[{"type":"public-key","alg":-7}],
            "authenticatorSelection":{"residentKey":"required","userVerification":"required"},"attestation":"none"}}
            """.utf8)
    }

    func create(user: String = "dXNlcg", extra: [String: String] = [:]) throws -> LatchkeyBinary.Run {
        try LatchkeyBinary.run(
            ["authenticator", "create", "--origin", "http://localhost:8080"], stdin: Self.creationOptions(user: user),
            environment: environment.merging(extra) { $1 })
    }

    @Test("create, list (text and JSON), get and remove")
    func lifecycle() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let created = try create()
        #expect(created.status == 0, "\(created.stderr)")
        let id = try #require(created.json?["id"] as? String)

        let list = try LatchkeyBinary.run(["authenticator", "list"], environment: environment)
        #expect(list.stdout.contains(id) && list.stdout.contains("localhost"))
        let json = try LatchkeyBinary.run(["authenticator", "list", "--json"], environment: environment)
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
        #expect(entries.count == 1)
        #expect(entries.first?["id"] as? String == id)
        #expect(!json.stdout.contains("privateKey"), "private keys never leave the store")

        let request = Data(#"{"challenge":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8","rpId":"localhost"}"#.utf8)
        let got = try LatchkeyBinary.run(["authenticator", "get", "--origin", "http://localhost:8080"], stdin: request, environment: environment)
        #expect(got.status == 0)
        #expect(got.json?["id"] as? String == id)

        // `--` first: a base64url id may begin with "-", and one such as "-Ru…h…" would otherwise be read as
        // short flags, -h among them (help, exit 0, nothing removed: about one run in 70 failed on it).
        #expect(try LatchkeyBinary.run(["authenticator", "remove", "--", id], environment: environment).status == 0)
        let again = try LatchkeyBinary.run(["authenticator", "remove", "--", id], environment: environment)
        #expect(again.status == 1)
        #expect(try LatchkeyBinary.run(["authenticator", "list"], environment: environment).stdout.contains("No passkeys"))
    }

    @Test("an id that begins with - and has no -- before it exits 2 saying so, and removes nothing")
    func dashLeadingId() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try create().status == 0)
        let before = try Data(contentsOf: store)
        // Holds an "h": the parser alone would print help and exit 0.
        let refused = try LatchkeyBinary.run(["authenticator", "remove", "-RuAFH16y4Td8SuLXtYku-jrhig20W0PC37p0bFo0AM"], environment: environment)
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("put -- before it"), "\(refused.stderr)")
        #expect(!refused.stdout.contains("USAGE"))
        #expect(try Data(contentsOf: store) == before)
    }

    @Test("bad input: options that are not JSON exit 2; a refusal exits 1 naming the DOMException")
    func badInput() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        let garbage = try LatchkeyBinary.run(["authenticator", "create", "--origin", "http://localhost:8080"], stdin: Data("nope".utf8), environment: environment)
        #expect(garbage.status == 2)
        let refused = try LatchkeyBinary.run(["authenticator", "create", "--origin", "https://example.org"], stdin: Self.creationOptions(), environment: environment)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("SecurityError"))
        let badMode = try LatchkeyBinary.run(["authenticator", "create", "--origin", "http://localhost:8080", "--attestation", "tpm"], stdin: Self.creationOptions(), environment: environment)
        #expect(badMode.status == 2)
    }

    @Test("a process killed between writing and renaming leaves the old store intact")
    func crashMidWrite() throws {
        defer { try? FileManager.default.removeItem(at: directory) }
        #expect(try create().status == 0)
        let before = try Data(contentsOf: store)

        let process = Process()
        process.executableURL = LatchkeyBinary.url
        process.arguments = ["authenticator", "create", "--origin", "http://localhost:8080"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
            .merging(["LATCHKEY_TEST_STALL_BEFORE_RENAME": "60"]) { $1 }
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = Pipe()
        process.standardError = Pipe()
        try process.run()
        input.fileHandleForWriting.write(Self.creationOptions(user: "b3RoZXI"))
        try input.fileHandleForWriting.close()

        // Wait until the new state is fully written to its temporary file, then kill the process.
        let deadline = Date() + 30
        var temporary: URL?
        while Date() < deadline, temporary == nil {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            temporary = names.first { $0.hasSuffix(".tmp") }.map { directory.appendingPathComponent($0) }
            if temporary == nil { Thread.sleep(forTimeInterval: 0.02) }
        }
        let written = try #require(temporary, "the writer never reached the rename")
        Thread.sleep(forTimeInterval: 0.2)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)

        #expect(try Data(contentsOf: store) == before, "the store still holds the state before the interrupted write")
        #expect(FileManager.default.fileExists(atPath: written.path), "the interrupted write never touched the store itself")
        let list = try LatchkeyBinary.run(["authenticator", "list", "--json"], environment: environment)
        #expect(list.status == 0)
        #expect((try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [Any])?.count == 1)
        #expect(try create(user: "dGhpcmQ").status == 0, "the store keeps working after the crash")
    }
}
