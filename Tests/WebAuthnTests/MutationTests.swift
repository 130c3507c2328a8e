import Foundation
import Testing
import WebAuthn

/// Every byte of a signed assertion matters: changing any one byte of authenticatorData or
/// clientDataJSON of a valid real-authenticator assertion must make verification fail — with a
/// WebAuthnError, never a crash.
@Suite("Mutated assertions")
struct MutationTests {
    static let validAssertions: [String] = SharedVectors.all.compactMap { vector in
        guard vector["ceremony"] as? String == "authentication",
              (vector["expected"] as? [String: Any])?["outcome"] as? String == "valid",
              let id = vector["id"] as? String, documentedSkips[id] == nil
        else { return nil }
        return id
    }

    @Test("any single-byte change to a valid assertion fails verification", arguments: validAssertions.prefix(12))
    func singleByteChanges(id: String) async throws {
        let vector = try #require(SharedVectors.vector(id))
        var credential = try #require(vector["credential"] as? [String: Any])
        let response = try #require(credential["response"] as? [String: Any])
        var rng = SystemRandomNumberGenerator()
        for member in ["authenticatorData", "clientDataJSON"] {
            let encoded = try #require(response[member] as? String)
            let original = try #require(Base64URL.decode(encoded))
            for _ in 0..<40 {
                var bytes = original
                let index = Int.random(in: 0..<bytes.count, using: &rng)
                bytes[index] ^= UInt8.random(in: 1...255, using: &rng)
                var mutated = response
                mutated[member] = Base64URL.encode(bytes)
                credential["response"] = mutated
                var doc = vector
                doc["credential"] = credential
                let document = try CeremonyDocument(json: JSONSerialization.data(withJSONObject: doc))
                do {
                    _ = try await document.verify()
                    Issue.record("\(id): changing byte \(index) of \(member) still verified")
                } catch is WebAuthnError {
                    // Expected: the change is detected.
                } catch {
                    Issue.record("\(id): unexpected error type \(error)")
                }
            }
        }
    }
}
