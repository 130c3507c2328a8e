import CBOR
import Foundation
import WebAuthn

/// The shared WebAuthn vectors (../shared/vectors/webauthn-vectors.json, 184 of them), read and prepared
/// before the window opens: their JSON parsed, their bytes decoded from base64url.
///
/// - `cbor-decode`: every registration's attestation object decoded as the verifier decodes it (CBOR,
///   then the authenticator data with its COSE key), and every stored COSE key of the authentications;
///   `passes` times over, in one window.
/// - `vectors-verify`: every vector verified as `latchkey verify` and the vector tests do
///   (`CeremonyDocument.verify`, trust roots and policy included), `passes` times over, in one window. A vector without
///   a `verification_time` gets 2026-11-21 (the day its certificates were checked as valid), so that
///   a certificate expiring later changes neither the outcome nor the count.
struct VectorWorkload {
    enum Kind: String {
        case cborDecode = "cbor-decode"
        case vectorsVerify = "vectors-verify"
    }

    let kind: Kind
    let vectorsPath: String
    let passes: Int

    /// Returns the windows measured.
    func run() async throws -> Int {
        let vectors = try Self.load(vectorsPath)
        let window = MeasuredWindow()
        switch kind {
        case .cborDecode:
            let attestationObjects = vectors.compactMap { vector -> [UInt8]? in
                guard vector["ceremony"] as? String == "registration",
                      let credential = vector["credential"] as? [String: Any],
                      let response = credential["response"] as? [String: Any],
                      let text = response["attestationObject"] as? String
                else { return nil }
                return Base64URL.decode(text)
            }
            let storedKeys = vectors.compactMap { vector -> [UInt8]? in
                guard let stored = vector["stored_credential"] as? [String: Any], let text = stored["public_key_cose"] as? String else { return nil }
                return Base64URL.decode(text)
            }
            guard attestationObjects.count > 100, storedKeys.count > 40 else {
                throw CountsFailure(description: "\(vectorsPath): \(attestationObjects.count) attestation objects and \(storedKeys.count) stored keys; expected the 125 registrations and 59 authentications")
            }
            // Warm-up: one pass outside the window (type metadata, lazy globals).
            var decoded = Self.decodeAll(attestationObjects, storedKeys)
            decoded = try await window.measure {
                var total = 0
                for _ in 0..<passes { total += Self.decodeAll(attestationObjects, storedKeys) }
                return total
            }
            guard decoded == passes * (attestationObjects.count + storedKeys.count) else {
                throw CountsFailure(description: "only \(decoded) of \(passes) × \(attestationObjects.count + storedKeys.count) CBOR items decoded")
            }
        case .vectorsVerify:
            let documents = try vectors.map { try CeremonyDocument(json: JSONSerialization.data(withJSONObject: Self.pinned($0))) }
            // Warm-up: the first vector, outside the window.
            _ = try? await documents.first?.verify()
            let verified = try await window.measure {
                var verified = 0
                for _ in 0..<passes {
                    for document in documents where (try? await document.verify()) != nil { verified += 1 }
                }
                return verified
            }
            // 158 of the 184 are expected to verify (the vector tests check each one's outcome and fields).
            let expected = passes * vectors.filter { ($0["expected"] as? [String: Any])?["outcome"] as? String == "valid" }.count
            guard verified == expected else { throw CountsFailure(description: "\(verified) verifications succeeded, \(expected) expected to") }
        }
        return window.count
    }

    /// Decodes every item; returns how many decoded.
    private static func decodeAll(_ attestationObjects: [[UInt8]], _ storedKeys: [[UInt8]]) -> Int {
        var count = 0
        for bytes in attestationObjects {
            guard case .map(let map)? = try? CBORDecoder().decode(bytes), let authData = map[text: "authData"]?.bytesValue,
                  (try? AuthenticatorData(bytes: authData)) != nil
            else { continue }
            count += 1
        }
        for bytes in storedKeys where (try? COSEKey(bytes: bytes)) != nil { count += 1 }
        return count
    }

    /// The vector with what the vector tests add: a fixed verification time when it has none, and RS1
    /// allowed for the RS1 credentials (off by default).
    private static func pinned(_ vector: [String: Any]) -> [String: Any] {
        var vector = vector
        if vector["verification_time"] == nil { vector["verification_time"] = "2026-11-21T12:00:00Z" }
        if (vector["decoded"] as? [String: Any])?["alg_name"] as? String == "RS1" {
            var policy = vector["policy"] as? [String: Any] ?? [:]
            policy["allow_rs1"] = true
            vector["policy"] = policy
        }
        return vector
    }

    private static func load(_ path: String) throws -> [[String: Any]] {
        guard let data = FileManager.default.contents(atPath: path),
              let top = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let vectors = top["vectors"] as? [[String: Any]]
        else { throw CountsFailure(description: "\(path) is not the shared vectors file") }
        return vectors
    }
}
