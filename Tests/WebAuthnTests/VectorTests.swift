import Foundation
import Testing
import WebAuthn

/// Vectors whose expected outcome depends on something this library deliberately does not do, each
/// with its reason (vectors README, step 5). `skippedVectorsFailAsDocumented` still runs every one of
/// them and checks that it fails for exactly the documented reason, so the list cannot hide a regression.
/// Empty on Linux, where all 184 run (`nothingIsSkippedOnLinux`): Ed448 is verified through OpenSSL's
/// libcrypto, which only builds for Apple platforms lack.
let documentedSkips: [String: (code: String, reason: String)] = COSEAlgorithm.ed448.isVerifiable ? [:] : [
    "yubico-reg-packed-basic-attestation-ed448": ("algorithm_not_allowed", ed448Reason),
    "yubico-auth-packed-basic-attestation-ed448": ("unsupported_algorithm", ed448Reason),
    "w3c-l3-reg-packed-x5c-ed448": ("algorithm_not_allowed", ed448Reason),
    "w3c-l3-auth-packed-x5c-ed448": ("unsupported_algorithm", ed448Reason),
]

private let ed448Reason =
    "Ed448 (COSE -53 / EdDSA on curve 7): this build has no libcrypto (not Linux), so the relying party neither offers nor verifies it"

/// The one policy the harness adds to a vector: RS1 is off by default and enabled only for the vectors
/// whose credential uses it (README step 5: algorithms a verifier may not enable by default).
private func document(for vector: [String: Any]) throws -> CeremonyDocument {
    var vector = vector
    let decoded = vector["decoded"] as? [String: Any] ?? [:]
    if decoded["alg_name"] as? String == "RS1" {
        var policy = vector["policy"] as? [String: Any] ?? [:]
        policy["allow_rs1"] = true
        vector["policy"] = policy
    }
    return try CeremonyDocument(json: JSONSerialization.data(withJSONObject: vector))
}

private enum Verdict {
    case valid(CeremonyDocument.Outcome)
    case invalid(WebAuthnError)
}

private func run(_ vector: [String: Any]) async throws -> Verdict {
    let doc = try document(for: vector)
    do {
        return .valid(try await doc.verify())
    } catch let error as WebAuthnError {
        return .invalid(error)
    }
}

@Suite("Shared WebAuthn vectors")
struct VectorTests {
    @Test("the vector file is present and complete")
    func vectorFileIsPresent() {
        #expect(FileManager.default.fileExists(atPath: SharedVectors.url.path), "missing \(SharedVectors.url.path)")
        #expect(SharedVectors.all.count == 184)
    }

    #if os(Linux)
    @Test("on Linux every vector runs: none is skipped, the four Ed448 ones included")
    func nothingIsSkippedOnLinux() {
        #expect(documentedSkips.isEmpty)
        #expect(SharedVectors.ids.filter { documentedSkips[$0] == nil }.count == 184)
        #expect(SharedVectors.ids.filter { $0.hasSuffix("-ed448") }.count == 4)
    }
    #endif

    @Test("every vector gives its expected outcome and fields", arguments: SharedVectors.ids.filter { documentedSkips[$0] == nil })
    func vector(id: String) async throws {
        let vector = try #require(SharedVectors.vector(id))
        let expected = try #require(vector["expected"] as? [String: Any])
        let outcome = try #require(expected["outcome"] as? String)
        let verdict = try await run(vector)

        switch (outcome, verdict) {
        case ("valid", .valid(let result)):
            checkFields(expected, vector: vector, result: result, id: id)
        case ("invalid", .invalid(let error)):
            #expect(expectedCodes(for: id).contains(error.code), "\(id) failed with \(error), expected one of \(expectedCodes(for: id))")
        case ("valid", .invalid(let error)):
            Issue.record("\(id) should verify but failed: \(error)")
        default:
            Issue.record("\(id) should fail (\(expected["reason"] ?? "")) but verified")
        }
    }

    @Test(
        "skipped vectors fail exactly for their documented reason", .enabled(if: !documentedSkips.isEmpty, "nothing is skipped in this build"),
        arguments: documentedSkips.keys.sorted())
    func skippedVectorsFailAsDocumented(id: String) async throws {
        let vector = try #require(SharedVectors.vector(id))
        let skip = try #require(documentedSkips[id])
        guard case .invalid(let error) = try await run(vector) else {
            Issue.record("\(id) now verifies: remove it from the skip list")
            return
        }
        #expect(error.code == skip.code, "\(id): \(error)")
    }

    private func checkFields(_ expected: [String: Any], vector: [String: Any], result: CeremonyDocument.Outcome, id: String) {
        let decoded = vector["decoded"] as? [String: Any] ?? [:]
        switch result {
        case .registration(let r):
            if let v = expected["credential_id"] as? String { #expect(Base64URL.encode(r.credentialId) == v, "\(id) credential_id") }
            if let v = expected["fmt"] as? String { #expect(r.attestationFormat == v, "\(id) fmt") }
            if let v = expected["credential_public_key"] as? String { #expect(Base64URL.encode(r.publicKey) == v, "\(id) public key") }
            if let v = expected["aaguid"] as? String { #expect(r.aaguidString == v.lowercased(), "\(id) aaguid") }
            if let v = expected["sign_count"] as? Int { #expect(Int(r.signCount) == v, "\(id) sign_count") }
            if let v = expected["alg"] as? Int { #expect(r.publicKeyAlgorithm.rawValue == v, "\(id) alg") }
            if let v = expected["backup_eligible"] as? Bool { #expect(r.backupEligible == v, "\(id) BE") }
            if let v = expected["backup_state"] as? Bool { #expect(r.backupState == v, "\(id) BS") }
            if let v = expected["user_verified"] as? Bool { #expect(r.userVerified == v, "\(id) UV") }
            if let v = expected["credential_device_type"] as? String {
                #expect(r.backupEligible == (v == "multi_device"), "\(id) device type")
            }
            // The collector's decoded facts agree with what the verifier parsed.
            if let v = decoded["credential_public_key"] as? String { #expect(Base64URL.encode(r.publicKey) == v, "\(id) decoded key") }
            if let v = decoded["aaguid"] as? String { #expect(r.aaguidString == v.lowercased(), "\(id) decoded aaguid") }
            if let v = decoded["alg"] as? Int { #expect(r.publicKeyAlgorithm.rawValue == v, "\(id) decoded alg") }
            // A chain is called trusted exactly when it was validated to the vector's roots; without roots, never.
            let trust = vector["attestation_trust"] as? [String: Any] ?? [:]
            let roots = trust["roots_pem"] as? [String] ?? []
            switch (roots.isEmpty, trust["chain_validation"] as? String) {
            case (true, _): #expect(!r.trustPathVerified, "\(id): no roots, so never trusted")
            case (false, "required"): #expect(r.trustPathVerified, "\(id): the chain must reach the vector's root")
            default: break // Roots given, but the source did not validate the chain: either result is honest.
            }
        case .authentication(let a):
            if let v = expected["credential_id"] as? String { #expect(Base64URL.encode(a.credentialId) == v, "\(id) credential_id") }
            let newCount = (expected["new_sign_count"] as? Int) ?? (decoded["sign_count"] as? Int)
            if let v = newCount { #expect(Int(a.signCount) == v, "\(id) new sign count") }
            if let v = expected["backup_eligible"] as? Bool { #expect(a.backupEligible == v, "\(id) BE") }
            if let v = expected["backup_state"] as? Bool { #expect(a.backupState == v, "\(id) BS") }
            if let v = expected["user_verified"] as? Bool { #expect(a.userVerified == v, "\(id) UV") }
            #expect(!a.possibleClone, "\(id) clone signal")
        }
    }

    /// The error codes that correctly explain each invalid vector's `expected.reason`.
    private func expectedCodes(for id: String) -> Set<String> {
        let reasons: [(String, Set<String>)] = [
            ("challenge", ["challenge_mismatch"]),
            ("crossorigin", ["cross_origin_not_allowed"]),
            ("toporigin", ["cross_origin_not_allowed", "top_origin_not_allowed"]),
            ("origin", ["origin_not_allowed"]),
            ("rpid", ["rp_id_hash_mismatch"]),
            ("uv-required", ["user_not_verified"]),
            ("wrong-public-key", ["signature_invalid"]),
            ("wrong-key", ["signature_invalid"]),
            ("counter-replay", ["sign_count_regression"]),
            ("aaguid", ["attestation_aaguid_mismatch"]),
            ("wrong-root", ["attestation_chain_invalid"]),
            ("tokenbinding", ["token_binding_invalid"]),
            ("cts", ["attestation_statement_malformed"]),
            ("hostname", ["attestation_certificate_invalid"]),
            ("android-key-es256", ["attestation_certificate_invalid"]),
        ]
        for (fragment, codes) in reasons where id.contains(fragment) { return codes }
        return []
    }
}
