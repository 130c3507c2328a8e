import CBOR
import Crypto
import Foundation
import X509

/// `android-safetynet` (§8.5): a SafetyNet attestation JWS from Google Play Services whose nonce binds
/// the ceremony. Google retired the API, but devices registered with it still present this format.
struct AndroidSafetyNetAttestation: AttestationStatementFormat {
    static let identifier = "android-safetynet"
    static let hostname = "attest.android.com"

    private func malformed(_ reason: String) -> WebAuthnError {
        WebAuthnError(.attestationStatementMalformed(format: Self.identifier, reason: reason))
    }

    /// The JWS header and payload are read by the strict, depth-limited parser: Foundation's
    /// `JSONDecoder` traps on some deeply nested documents (513 `[`), and the header reaches it before
    /// any signature is checked.
    private struct Header {
        let alg: String
        let x5c: [String]

        init(json reader: JSONShapeReader) throws(JSONShapeError) {
            alg = try reader.string("alg")
            x5c = try reader.stringArray("x5c")
        }
    }

    private struct Payload {
        let nonce: String
        /// Finite (a number too large for a `Double` is refused when the payload is read).
        let timestampMs: Double?
        let ctsProfileMatch: Bool?

        init(json reader: JSONShapeReader) throws(JSONShapeError) {
            nonce = try reader.string("nonce")
            timestampMs = try reader.optionalDouble("timestampMs")
            ctsProfileMatch = try reader.optionalBool("ctsProfileMatch")
        }
    }

    /// A JSON object read from base64url bytes, or nil when it is not one of the expected shape.
    private static func read<T>(_ bytes: [UInt8], as make: (JSONShapeReader) throws(JSONShapeError) -> T) -> T? {
        guard let document = try? JSONValue.parse(bytes), let reader = try? JSONShapeReader(document) else { return nil }
        return try? make(reader)
    }

    func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome {
        // ver is the version of Google Play Services responsible for the response.
        guard let ver = input.statement[text: "ver"]?.textValue, !ver.isEmpty else { throw malformed("ver is missing or empty") }
        guard let response = input.statement[text: "response"]?.bytesValue,
              let jws = String(validating: response, as: UTF8.self)
        else { throw malformed("response is missing or not UTF-8") }
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let headerBytes = Base64URL.decode(String(parts[0])), let payloadBytes = Base64URL.decode(String(parts[1])),
              let signature = Base64URL.decode(String(parts[2]))
        else { throw malformed("response is not a compact JWS") }
        guard let header = Self.read(headerBytes, as: Header.init(json:)) else {
            throw malformed("the JWS header is not JSON with alg and x5c")
        }
        guard let payload = Self.read(payloadBytes, as: Payload.init(json:)) else {
            throw malformed("the JWS payload is not JSON with a nonce (and a finite timestampMs)")
        }
        // The certificates of the JWS header (standard base64 DER), leaf first.
        guard header.x5c.count <= AttestationCertificates.maximumChainLength else {
            throw malformed("the JWS header's x5c has \(header.x5c.count) certificates, more than the limit of \(AttestationCertificates.maximumChainLength)")
        }
        var x5c: [CBORValue] = []
        for certificate in header.x5c {
            guard let der = Data(base64Encoded: certificate) else { throw malformed("an x5c certificate in the JWS header is not base64") }
            x5c.append(.bytes(Array(der)))
        }
        let chain = try AttestationCertificates.parseX5C(.array(x5c), format: Self.identifier)
        let leaf = chain[0]
        // The JWS signature, by the leaf certificate's key, over "header.payload".
        let signingInput = Array("\(parts[0]).\(parts[1])".utf8)
        if let bits = SignaturePublicKey(certificateKey: leaf.publicKey)?.oversizedRSABits {
            throw WebAuthnError(.attestationCertificateInvalid(
                format: Self.identifier, rule: "the RSA key is \(bits) bits, over the \(SignaturePublicKey.maximumRSABits)-bit limit"))
        }
        guard JWSSignature.isValid(signature, over: signingInput, alg: header.alg, certificate: leaf) else {
            throw WebAuthnError(.attestationSignatureInvalid(format: Self.identifier))
        }
        // The leaf certificate is issued to attest.android.com.
        guard Self.isIssuedToAttestHost(leaf) else {
            throw WebAuthnError(.attestationCertificateInvalid(format: Self.identifier, rule: "the certificate is not issued to attest.android.com"))
        }
        // nonce is the base64 of SHA-256(authenticatorData ‖ clientDataHash).
        let nonce = Data(SHA256.hash(data: input.authenticatorData.rawBytes + input.clientDataHash)).base64EncodedString()
        guard ConstantTime.equal(Array(payload.nonce.utf8), Array(nonce.utf8)) else {
            throw malformed("the nonce is not base64(SHA-256(authenticatorData ‖ clientDataHash))")
        }
        // Relying-party policy: ctsProfileMatch, and the response's age.
        let policy = input.relyingParty.safetyNet
        if policy.requireCTSProfileMatch, payload.ctsProfileMatch != true {
            throw malformed("ctsProfileMatch is not true (the device failed Android compatibility checks)")
        }
        if let maxAge = policy.maximumAge {
            guard let milliseconds = payload.timestampMs else { throw malformed("timestampMs is missing") }
            let issued = Date(timeIntervalSince1970: milliseconds / 1000)
            let age = input.verificationTime.timeIntervalSince(issued)
            guard age <= maxAge, age >= -policy.allowedClockSkew else {
                // Any finite Double can arrive here; only a plausible age is worth printing (and `Int(_:)`
                // of a huge one would trap).
                let shown = abs(age) < 1e12 ? "\(Int(age)) s old" : "not a plausible time"
                throw malformed("timestampMs is outside the accepted window (\(shown))")
            }
        }
        return AttestationOutcome(type: .basic, trustPath: chain)
    }

    static func isIssuedToAttestHost(_ certificate: Certificate) -> Bool {
        if let names = try? certificate.extensions.subjectAlternativeNames {
            for name in names {
                if case .dnsName(let host) = name, host == hostname { return true }
            }
        }
        return SubjectFields(certificate.subject).value(of: .RDNAttributeType.commonName) == hostname
    }
}
