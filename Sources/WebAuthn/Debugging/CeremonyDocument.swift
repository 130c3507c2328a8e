import Foundation
import X509

/// One ceremony to verify offline, in the shape of the shared WebAuthn test vectors: the credential a
/// client sent plus everything the relying party expected. `latchkey verify` reads it, and the vector
/// tests run every shared vector through it, so the debugger and the tests cannot drift apart.
public struct CeremonyDocument: Sendable {
    /// Why a document cannot be used at all (as opposed to a credential that fails verification).
    public struct Unusable: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    public struct Policy: Sendable {
        public var allowCrossOrigin = false
        public var topOrigins: [String] = []
        /// Latchkey's own policy key `allow_rs1`: accept RS1 credentials (off by default).
        public var allowRS1 = false
        /// `safetynet_enforce_cts_profile_match` (default true).
        public var safetyNetEnforceCTS = true
        /// `safetynet_check_timestamp` (default true).
        public var safetyNetCheckTimestamp = true
    }

    public let ceremony: Ceremony?
    /// The credential JSON, kept as bytes so that its shape errors are verification failures.
    public let credentialJSON: Data
    /// The issued challenge as the document gives it: base64url text.
    public let expectedChallenge: String
    public let expectedOrigins: [String]
    public let expectedRPID: String
    public let requireUserVerification: Bool
    public let requireUserPresence: Bool
    public let storedPublicKey: [UInt8]?
    public let storedSignCount: UInt32
    public let verificationTime: Date?
    public let rootsPEM: [String]
    public var policy: Policy

    public init(json data: Data) throws(Unusable) {
        do {
            try JSONValue.validate(data)
        } catch {
            throw Unusable(description: "the document is not JSON (\(error))")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data), let doc = object as? [String: Any] else {
            throw Unusable(description: "the document is not a JSON object")
        }
        func required<T>(_ key: String, as type: T.Type) throws(Unusable) -> T {
            guard let value = doc[key] else { throw Unusable(description: "the document has no \"\(key)\" member") }
            guard let typed = value as? T else { throw Unusable(description: "\"\(key)\" has the wrong type") }
            return typed
        }
        if let name = doc["ceremony"] as? String {
            guard let ceremony = Ceremony(rawValue: name) else {
                throw Unusable(description: "\"ceremony\" must be \"registration\" or \"authentication\"")
            }
            self.ceremony = ceremony
        } else {
            ceremony = nil
        }
        let credential = try required("credential", as: [String: Any].self)
        guard let credentialData = try? JSONSerialization.data(withJSONObject: credential) else {
            throw Unusable(description: "\"credential\" cannot be re-encoded as JSON")
        }
        credentialJSON = credentialData
        expectedChallenge = try required("expected_challenge", as: String.self)
        expectedOrigins = try required("expected_origins", as: [String].self)
        expectedRPID = try required("expected_rp_id", as: String.self)
        requireUserVerification = doc["require_user_verification"] as? Bool ?? true
        requireUserPresence = doc["require_user_presence"] as? Bool ?? true

        if let stored = doc["stored_credential"] {
            guard let stored = stored as? [String: Any], let key = stored["public_key_cose"] as? String,
                  let keyBytes = Base64URL.decode(key)
            else { throw Unusable(description: "\"stored_credential.public_key_cose\" is missing or not base64url") }
            storedPublicKey = keyBytes
            let count = stored["sign_count"] as? Int ?? 0
            guard let signCount = UInt32(exactly: count) else {
                throw Unusable(description: "\"stored_credential.sign_count\" is not a 32-bit unsigned integer")
            }
            storedSignCount = signCount
        } else {
            storedPublicKey = nil
            storedSignCount = 0
        }

        if let time = doc["verification_time"] {
            guard let text = time as? String, let date = Self.parseTime(text) else {
                throw Unusable(description: "\"verification_time\" is not an ISO 8601 UTC time")
            }
            verificationTime = date
        } else {
            verificationTime = nil
        }
        rootsPEM = ((doc["attestation_trust"] as? [String: Any])?["roots_pem"] as? [String]) ?? []

        var policy = Policy()
        if let p = doc["policy"] as? [String: Any] {
            policy.allowCrossOrigin = p["allow_cross_origin"] as? Bool ?? false
            policy.topOrigins = p["top_origins"] as? [String] ?? []
            policy.allowRS1 = p["allow_rs1"] as? Bool ?? false
            policy.safetyNetEnforceCTS = p["safetynet_enforce_cts_profile_match"] as? Bool ?? true
            policy.safetyNetCheckTimestamp = p["safetynet_check_timestamp"] as? Bool ?? true
        }
        self.policy = policy
    }

    static func parseTime(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    public enum Outcome: Sendable {
        case registration(RegistrationResult)
        case authentication(AuthenticationResult)
    }

    /// The relying party the document describes.
    public func relyingParty() throws(Unusable) -> RelyingParty {
        var anchors = TrustAnchors()
        for pem in rootsPEM {
            guard let roots = try? TrustAnchors.certificates(fromPEM: pem) else {
                throw Unusable(description: "\"attestation_trust.roots_pem\" holds text that is not a PEM certificate")
            }
            anchors.add(roots, forFormat: TrustAnchors.anyFormat)
        }
        var rp = RelyingParty(
            id: expectedRPID, name: expectedRPID, origins: expectedOrigins,
            userVerification: requireUserVerification ? .required : .preferred,
            allowedAlgorithms: RelyingParty.defaultAlgorithms + (policy.allowRS1 ? [.rs1] : []),
            allowCrossOrigin: policy.allowCrossOrigin, allowedTopOrigins: policy.topOrigins, trustAnchors: anchors)
        rp.safetyNet.requireCTSProfileMatch = policy.safetyNetEnforceCTS
        if !policy.safetyNetCheckTimestamp { rp.safetyNet.maximumAge = nil }
        return rp
    }

    /// Verifies the credential as `ceremony` (or the document's own ceremony).
    public func verify(as requested: Ceremony? = nil) async throws -> Outcome {
        guard let kind = requested ?? ceremony else {
            throw Unusable(description: "the ceremony is not given (registration or authentication)")
        }
        if let ceremony, ceremony != kind {
            throw Unusable(description: "the document is a \(ceremony.rawValue), not an \(kind.rawValue)")
        }
        let rp = try relyingParty()
        // clientDataJSON.challenge is always a base64url encoding (§5.8.1), so an expected challenge that is
        // not one can never equal it: §7.1 step 8 / §7.2 step 11 fail without further work.
        let challenge = Base64URL.decode(expectedChallenge)
        switch kind {
        case .registration:
            let credential: RegistrationResponseJSON = try Self.decodeCredential(credentialJSON, in: .registration)
            guard let challenge else { throw WebAuthnError(.challengeMismatch, in: .registration) }
            let result = try await RegistrationVerifier(relyingParty: rp).verify(
                credential, expectedChallenge: challenge, requireUserPresence: requireUserPresence,
                verificationTime: verificationTime ?? Date())
            return .registration(result)
        case .authentication:
            guard let storedPublicKey else { throw Unusable(description: "an authentication needs \"stored_credential\"") }
            let credential: AuthenticationResponseJSON = try Self.decodeCredential(credentialJSON, in: .authentication)
            guard let challenge else { throw WebAuthnError(.challengeMismatch, in: .authentication) }
            let rawId = Base64URL.decode(credential.rawId) ?? []
            let stored: StoredCredential
            do {
                stored = try StoredCredential(id: rawId, publicKeyCOSE: storedPublicKey, signCount: storedSignCount)
            } catch {
                throw Unusable(description: "\"stored_credential.public_key_cose\" is not a usable COSE key: \(error.message)")
            }
            return .authentication(try AuthenticationVerifier(relyingParty: rp).verify(
                credential, expectedChallenge: challenge, storedCredential: stored))
        }
    }

    /// The credential's JSON shape: a missing or mistyped member is a malformed credential (§7.x step 3).
    static func decodeCredential<T: Decodable>(_ data: Data, in ceremony: Ceremony) throws(WebAuthnError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            let path = (context.codingPath.map(\.stringValue) + [key.stringValue]).joined(separator: ".")
            throw WebAuthnError(.malformedCredential(field: path, reason: "missing"), in: ceremony)
        } catch let DecodingError.typeMismatch(_, context) {
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            throw WebAuthnError(.malformedCredential(field: path, reason: "wrong JSON type"), in: ceremony)
        } catch {
            throw WebAuthnError(.malformedCredential(field: "credential", reason: "not a credential JSON object"), in: ceremony)
        }
    }
}
