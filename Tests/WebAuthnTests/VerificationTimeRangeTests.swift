import Foundation
import Testing
import WebAuthn

/// The attestation fuzz target's first crash: a verification time past year 9999 reached
/// swift-certificates, whose X.509 time conversion traps (`try!`) on it. `latchkey verify` takes "now"
/// from its document, and ISO 8601 lets that be year 10000, so a document could crash the debugger.
@Suite("Verification time outside X.509's years")
struct VerificationTimeRangeTests {
    /// A packed registration with an x5c chain and its root (chain validation is reached), with "now" set.
    private func document(now: String) throws -> CeremonyDocument {
        var vector = try #require(SharedVectors.vector("go-spec-reg-packed-x5c-es256"))
        vector["verification_time"] = now
        return try CeremonyDocument(json: JSONSerialization.data(withJSONObject: vector))
    }

    @Test("a time past year 9999 is refused at chain validation, not a crash", arguments: ["10000-01-01T00:00:00Z", "99999-06-01T00:00:00Z"])
    func pastYear9999(now: String) async throws {
        let document = try document(now: now)
        await #expect {
            _ = try await document.verify()
        } throws: { error in
            (error as? WebAuthnError)?.code == "attestation_chain_invalid"
                && (error as? WebAuthnError)?.message.contains("0001–9999") == true
        }
    }

    @Test("the last second of year 9999 still reaches chain validation")
    func lastSecondOfYear9999() async throws {
        let document = try document(now: "9999-12-31T23:59:59Z")
        await #expect {
            _ = try await document.verify()
        } throws: { error in
            // The chain's certificates have expired by then; the refusal names them, not the time range.
            (error as? WebAuthnError)?.code == "attestation_chain_invalid"
                && (error as? WebAuthnError)?.message.contains("0001–9999") == false
        }
    }
}
