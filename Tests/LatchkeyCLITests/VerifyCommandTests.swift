import Foundation
import Testing

/// Runs the built `latchkey` binary the way a user does and checks output and exit status.
enum LatchkeyBinary {
    static let url: URL = {
        let candidates = [
            Bundle.main.executableURL?.deletingLastPathComponent().appendingPathComponent("latchkey"),
            Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("latchkey"),
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent(".build/debug/latchkey"),
        ]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0.path) }
            ?? URL(fileURLWithPath: "/nonexistent/latchkey")
    }()

    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
        var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(stdout.utf8))) as? [String: Any]
        }
    }

    static func run(_ arguments: [String], stdin: Data = Data(), environment: [String: String] = [:]) throws -> Run {
        let process = Process()
        process.executableURL = url
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let (input, output, error) = (Pipe(), Pipe(), Pipe())
        process.standardInput = input
        process.standardOutput = output
        process.standardError = error
        try process.run()
        input.fileHandleForWriting.write(stdin)
        try input.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }
}

private func sharedVector(_ id: String) throws -> [String: Any] {
    let path = ProcessInfo.processInfo.environment["LATCHKEY_VECTORS"].flatMap { $0.isEmpty ? nil : $0 }
        ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/vectors/webauthn-vectors.json").path
    let top = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
    let vectors = top?["vectors"] as? [[String: Any]] ?? []
    return try #require(vectors.first { $0["id"] as? String == id })
}

private func json(_ object: Any) throws -> Data {
    try JSONSerialization.data(withJSONObject: object)
}

@Suite("latchkey verify")
struct VerifyCommandTests {
    @Test("the binary was built")
    func binaryExists() {
        #expect(FileManager.default.isExecutableFile(atPath: LatchkeyBinary.url.path), "latchkey not found next to the tests")
    }

    @Test("a valid registration prints the verified result and exits 0")
    func validRegistration() throws {
        let vector = try sharedVector("go-spec-reg-packed-x5c-es256")
        let run = try LatchkeyBinary.run(["verify", "registration"], stdin: try json(vector))
        #expect(run.status == 0, "\(run.stderr)")
        let result = try #require(run.json)
        let expected = try #require(vector["expected"] as? [String: Any])
        if let id = expected["credential_id"] as? String { #expect(result["credentialId"] as? String == id) }
        #expect(result["attestationFormat"] as? String == "packed")
        #expect(result["attestationType"] as? String == "basic")
        #expect(result["trustPathVerified"] as? Bool == true)
        #expect(result["publicKeyAlgorithm"] as? Int == -7)
        for key in ["publicKey", "signCount", "aaguid", "userVerified", "backupEligible", "backupState"] {
            #expect(result[key] != nil, "missing \(key)")
        }
    }

    @Test("a valid authentication from a file prints the new sign count and the clone signal")
    func validAuthenticationFromFile() throws {
        let vector = try sharedVector("yubico-auth-yubi-key5-nfc")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-verify-\(UUID().uuidString).json")
        try json(vector).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let run = try LatchkeyBinary.run(["verify", "authentication", file.path])
        #expect(run.status == 0, "\(run.stderr)")
        let result = try #require(run.json)
        #expect(result["possibleClone"] as? Bool == false)
        #expect(result["signCount"] as? Int == (vector["decoded"] as? [String: Any])?["sign_count"] as? Int)
    }

    @Test("the README's example documents verify", arguments: ["registration", "authentication"])
    func readmeExamples(ceremony: String) throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let run = try LatchkeyBinary.run(["verify", ceremony, root.appendingPathComponent("Examples/\(ceremony).json").path])
        #expect(run.status == 0, "\(run.stdout) \(run.stderr)")
        #expect(run.json?["ceremony"] as? String == ceremony)
        #expect(run.json?["userVerified"] as? Bool == true)
    }

    @Test("a failed verification prints the failed step as an error object and exits 1")
    func failedVerification() throws {
        let run = try LatchkeyBinary.run(["verify", "registration"], stdin: try json(try sharedVector("swa-reg-none-rpid-mismatch-invalid")))
        #expect(run.status == 1)
        let error = try #require(run.json?["error"] as? [String: Any])
        #expect(error["code"] as? String == "rp_id_hash_mismatch")
        #expect((error["message"] as? String)?.contains("§7.1 step 14") == true)
    }

    @Test("malformed credential contents are verification failures (exit 1), not crashes")
    func malformedContents() throws {
        var vector = try sharedVector("pywebauthn-auth-es256")
        var credential = try #require(vector["credential"] as? [String: Any])
        var response = try #require(credential["response"] as? [String: Any])
        let authData = try #require(response["authenticatorData"] as? String)
        let cases: [(String, Any, String)] = [
            ("authenticatorData", "%%%", "malformed_credential"),
            ("authenticatorData", String(authData.prefix(20)), "authenticator_data_malformed"),
            ("clientDataJSON", "bm90IGpzb24", "client_data_malformed"),
            ("signature", 42, "malformed_credential"),
        ]
        for (member, value, code) in cases {
            var mutated = response
            mutated[member] = value
            credential["response"] = mutated
            vector["credential"] = credential
            let run = try LatchkeyBinary.run(["verify", "authentication"], stdin: try json(vector))
            #expect(run.status == 1, "\(member): \(run.stdout) \(run.stderr)")
            #expect((run.json?["error"] as? [String: Any])?["code"] as? String == code, "\(member): \(run.stdout)")
        }
        response.removeValue(forKey: "signature")
        credential["response"] = response
        vector["credential"] = credential
        let missing = try LatchkeyBinary.run(["verify", "authentication"], stdin: try json(vector))
        #expect(missing.status == 1)
        #expect((missing.json?["error"] as? [String: Any])?["code"] as? String == "malformed_credential")
    }

    @Test("an unusable document exits 2 with one sentence on stderr and nothing on stdout")
    func unusableDocument() throws {
        let notJSON = try LatchkeyBinary.run(["verify", "registration"], stdin: Data("hello".utf8))
        #expect(notJSON.status == 2)
        #expect(notJSON.stdout.isEmpty)
        #expect(notJSON.stderr.contains("not JSON"))
        // The shape that traps Foundation's JSONSerialization: refused by the depth-limited parser first.
        let deep = try LatchkeyBinary.run(["verify", "registration"], stdin: Data(String(repeating: "[", count: 513).utf8))
        #expect(deep.status == 2)
        #expect(deep.stderr.contains("nested deeper than 64 levels"), "\(deep.stderr)")

        var vector = try sharedVector("pywebauthn-reg-none-es256")
        vector.removeValue(forKey: "expected_rp_id")
        let missing = try LatchkeyBinary.run(["verify", "registration", "-"], stdin: try json(vector))
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("expected_rp_id"))

        let wrongKind = try LatchkeyBinary.run(["verify", "authentication"], stdin: try json(try sharedVector("pywebauthn-reg-none-es256")))
        #expect(wrongKind.status == 2)

        let noFile = try LatchkeyBinary.run(["verify", "registration", "/nonexistent/doc.json"])
        #expect(noFile.status == 2)
        #expect(noFile.stderr.contains("cannot read"))
    }

    @Test("bad usage exits 2 with a usage message")
    func badUsage() throws {
        let run = try LatchkeyBinary.run(["verify", "enrolment"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("Usage") || run.stderr.contains("Error"))
    }
}
