import CBOR
import Foundation
import Testing
@testable import WebAuthn

/// Ed448 through OpenSSL's libcrypto, checked against bytes another implementation made: Python's
/// `cryptography` (50.0.2, the py_webauthn venv), with this script (EdDSA is deterministic, so running
/// it again prints the same bytes):
///
///     import base64, hashlib, json, struct, cbor2
///     from cryptography.hazmat.primitives.asymmetric.ed448 import Ed448PrivateKey
///     from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
///     b64 = lambda b: base64.urlsafe_b64encode(b).rstrip(b"=").decode()
///     key = Ed448PrivateKey.from_private_bytes(hashlib.shake_256(b"latchkey ed448 test key").digest(57))
///     x = key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
///     message = b"Latchkey Ed448 test message"
///     print(x.hex(), key.sign(message).hex())
///     # A packed self-attested registration (alg -8, crv 7) and an assertion, RP example.com.
///     rp_hash = hashlib.sha256(b"example.com").digest()
///     cred_id = hashlib.sha256(b"ed448 credential").digest()[:16]
///     cose = cbor2.dumps({1: 1, 3: -8, -1: 7, -2: x})
///     def client_data(kind, challenge):
///         return json.dumps({"type": kind, "challenge": b64(challenge), "origin": "https://example.com",
///                            "crossOrigin": False}, separators=(",", ":")).encode()
///     reg_cd = client_data("webauthn.create", bytes(range(32)))
///     reg_ad = (rp_hash + bytes([0x45]) + struct.pack(">I", 0) + bytes(16) + struct.pack(">H", len(cred_id))
///               + cred_id + cose)
///     sig = key.sign(reg_ad + hashlib.sha256(reg_cd).digest())
///     att = cbor2.dumps({"fmt": "packed", "attStmt": {"alg": -8, "sig": sig}, "authData": reg_ad})
///     auth_cd = client_data("webauthn.get", bytes(range(32, 64)))
///     auth_ad = rp_hash + bytes([0x05]) + struct.pack(">I", 1)
///     print(b64(cred_id), b64(reg_cd), b64(att), b64(auth_cd), b64(auth_ad))
///     print(b64(key.sign(auth_ad + hashlib.sha256(auth_cd).digest())))
///
/// The shared vectors add four more (Yubico's and the W3C §16.12 pair, alg -53): `VectorTests`.
@Suite("Ed448 (OpenSSL libcrypto)", .enabled(if: COSEAlgorithm.ed448.isVerifiable, "this build has no libcrypto (not Linux)"))
struct Ed448Tests {
    static let publicKey = hex(
        "aaa9925d637a322b6f663cfcd42e329b51e31750e3fbc22b80254512ce53ca0566f93ca1794c0faad0a300f0eae87b8452404e1aaabdc04380")
    static let message = Array("Latchkey Ed448 test message".utf8)
    static let signature = hex(
        "482edf8383b6ccd489c4fb79ac7a17691a8e7ac83d87e01d6285544adca7ce88ea57f9a973331cf757bc9a72af63e8a136ea35b5cb61d9ec00"
            + "2edb95b5539fcdd19b52420ea8cb4c4a87f3fc771552fc86ad686fcc58ee054bf35e75134e6f4b6d5cd7cf4e6773cdbc36c2eed85f16a50d00")

    static let credentialId = "lvOf8K1PO6WxT97HAk7Yzw"
    static let registrationClientData =
        "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIiwiY2hhbGxlbmdlIjoiQUFFQ0F3UUZCZ2NJQ1FvTERBME9EeEFSRWhNVUZSWVhHQmthR3h3ZEhoOCIsIm9yaWdpbiI6Imh0dHBzOi8vZXhhbXBsZS5jb20iLCJjcm9zc09yaWdpbiI6ZmFsc2V9"
    static let attestationObject =
        "o2NmbXRmcGFja2VkZ2F0dFN0bXSiY2FsZydjc2lnWHLbIEt6gRE3oqQvbweKo8OzcP_cR4GBEQBPhlmfb7v0CqP1puTu9WJiAaRkMoHIhHdrEj6RgN4mkIDhLRnx_aW8bVWGtYu7p1GEG3KUstInxZWHkD_b0i9Tp5-onB6V3zDI4jVVcIjMmhlDXPusfoA8MwBoYXV0aERhdGFYiqN5pvbur7mlXjeMEYA04nUeaC-rny0wqxPSElWGzhlHRQAAAAAAAAAAAAAAAAAAAAAAAAAAABCW85_wrU87pbFP3scCTtjPpAEBAycgByFYOaqpkl1jejIrb2Y8_NQuMptR4xdQ4_vCK4AlRRLOU8oFZvk8oXlMD6rQowDw6uh7hFJAThqqvcBDgA"
    static let assertionClientData =
        "eyJ0eXBlIjoid2ViYXV0aG4uZ2V0IiwiY2hhbGxlbmdlIjoiSUNFaUl5UWxKaWNvS1NvckxDMHVMekF4TWpNME5UWTNPRGs2T3p3OVBqOCIsIm9yaWdpbiI6Imh0dHBzOi8vZXhhbXBsZS5jb20iLCJjcm9zc09yaWdpbiI6ZmFsc2V9"
    static let assertionAuthenticatorData = "o3mm9u6vuaVeN4wRgDTidR5oL6ufLTCrE9ISVYbOGUcFAAAAAQ"
    static let assertionSignature =
        "3aa_ilzmNwzJFNgvc1UO4RLu7NFV3kld9ld1UUc7dPVgANs2G2vt448Ysb80XFZgcAg_t0Cblq0AI6w_tf0Q-AJtVFAtViPF1lM_l2BujJf119n233MXuPri0oD5klu3ZfWmr5CuucN0ZIx6pffvwScA"

    static let relyingParty = RelyingParty(id: "example.com", name: "Example", origins: ["https://example.com"])

    static func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    static func coseKey(alg: Int64, crv: Int64 = 7, x: [UInt8] = publicKey) -> [UInt8] {
        CBOREncoder().encode(.map(CBORMap([(.int(1), .int(1)), (.int(3), .int(alg)), (.int(-1), .int(crv)), (.int(-2), .bytes(x))]) ?? CBORMap()))
    }

    static func flipped(_ bytes: [UInt8], at index: Int) -> [UInt8] {
        var bytes = bytes
        bytes[index] ^= 0x01
        return bytes
    }

    #if os(Linux)
    @Test("a Linux build verifies Ed448 (libcrypto is linked): none of these tests is skipped there")
    func availableOnLinux() {
        #expect(COSEAlgorithm.ed448.isVerifiable)
        #expect(RelyingParty.defaultAlgorithms.contains(.ed448))
    }
    #endif

    @Test("cryptography's signature verifies under EdDSA (-8) and Ed448 (-53) keys on curve 7", arguments: [Int64(-8), -53])
    func signatureVerifies(alg: Int64) throws {
        let key = try COSEKey(bytes: Self.coseKey(alg: alg))
        #expect(key.keyType == .okp)
        #expect(try key.isValidSignature(Self.signature, for: Self.message))
    }

    @Test("a changed byte of the message, the signature or the key fails the signature")
    func tamperedFails() throws {
        let key = try COSEKey(bytes: Self.coseKey(alg: -8))
        #expect(try !key.isValidSignature(Self.signature, for: Self.flipped(Self.message, at: 0)))
        #expect(try !key.isValidSignature(Self.signature, for: Self.message + [0]))
        #expect(try !key.isValidSignature(Self.signature, for: []))
        for index in [0, 56, 57, 113] {
            #expect(try !key.isValidSignature(Self.flipped(Self.signature, at: index), for: Self.message), "signature byte \(index)")
        }
        // A changed key byte is another point, or none at all (OpenSSL then refuses the key): either way, no.
        for index in [0, 30, 56] {
            let other = try COSEKey(bytes: Self.coseKey(alg: -8, x: Self.flipped(Self.publicKey, at: index)))
            #expect(try !other.isValidSignature(Self.signature, for: Self.message), "key byte \(index)")
        }
    }

    @Test("sizes are checked before OpenSSL sees a byte: a 57-byte key, a 114-byte signature")
    func sizes() throws {
        for size in [0, 32, 56, 58, 114] {
            let error = #expect(throws: WebAuthnError.self) { try COSEKey(bytes: Self.coseKey(alg: -8, x: [UInt8](repeating: 1, count: size))) }
            #expect(error?.code == "public_key_invalid", "key of \(size) bytes")
        }
        #expect(Ed448PublicKey(rawRepresentation: Array(Self.publicKey.dropLast())) == nil)
        let key = try #require(Ed448PublicKey(rawRepresentation: Self.publicKey))
        for size in [0, 64, 113, 115, 228] {
            let signature = Array((Self.signature + Self.signature).prefix(size))
            #expect(!key.isValidSignature(signature, for: Self.message), "signature of \(size) bytes")
        }
        #expect(key.isValidSignature(Self.signature, for: Self.message))
        // Ed448 and Ed25519 keys never stand in for each other.
        #expect(!SignaturePublicKey.ed448(key).fits(.ed25519))
        #expect(!SignaturePublicKey.ed448(key).fits(.es256))
        #expect(SignaturePublicKey.ed448(key).fits(.edDSA))
        let wrongCurve = #expect(throws: WebAuthnError.self) { try COSEKey(bytes: Self.coseKey(alg: -53, crv: 6)) }
        #expect(wrongCurve?.code == "public_key_invalid")
    }

    func registration(attestationObject: String? = nil) -> RegistrationResponseJSON {
        RegistrationResponseJSON(
            id: Self.credentialId, rawId: Self.credentialId,
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: Self.registrationClientData, attestationObject: attestationObject ?? Self.attestationObject))
    }

    func assertion(signature: String = Self.assertionSignature) -> AuthenticationResponseJSON {
        AuthenticationResponseJSON(
            id: Self.credentialId, rawId: Self.credentialId,
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: Self.assertionClientData, authenticatorData: Self.assertionAuthenticatorData, signature: signature))
    }

    @Test("a packed self-attested Ed448 registration (alg -8, crv 7) and its assertion verify; tampered ones do not")
    func ceremonies() async throws {
        let challenge = Array(UInt8(0)..<32)
        // The server offers -8 (EdDSA) and not -53: an Ed448 key under -8 is accepted with what it offers.
        let registered = try await RegistrationVerifier(relyingParty: Self.relyingParty).verify(
            registration(), expectedChallenge: challenge, allowedAlgorithms: [.es256, .edDSA])
        #expect(registered.publicKeyAlgorithm == .edDSA)
        #expect(registered.attestationFormat == "packed")
        #expect(registered.attestationType == .`self`)
        #expect(registered.publicKey == Self.coseKey(alg: -8))
        #expect(Base64URL.encode(registered.credentialId) == Self.credentialId)

        // The attestation signature's last byte changed: packed self attestation fails.
        var attestation = try #require(Base64URL.decode(Self.attestationObject))
        let sigStart = try #require(Self.signatureOffset(in: attestation))
        attestation[sigStart + 113] ^= 0x01
        let badRegistration = await #expect(throws: WebAuthnError.self) {
            try await RegistrationVerifier(relyingParty: Self.relyingParty).verify(
                registration(attestationObject: Base64URL.encode(attestation)), expectedChallenge: challenge)
        }
        #expect(badRegistration?.code == "attestation_signature_invalid")

        let record = try StoredCredential(id: registered.credentialId, publicKeyCOSE: registered.publicKey, signCount: registered.signCount)
        let verifier = AuthenticationVerifier(relyingParty: Self.relyingParty)
        let loginChallenge = Array(UInt8(32)..<64)
        let login = try verifier.verify(assertion(), expectedChallenge: loginChallenge, storedCredential: record)
        #expect(login.signCount == 1)
        #expect(login.userVerified)

        let signature = try #require(Base64URL.decode(Self.assertionSignature))
        let badLogin = #expect(throws: WebAuthnError.self) {
            try verifier.verify(
                assertion(signature: Base64URL.encode(Self.flipped(signature, at: 0))), expectedChallenge: loginChallenge, storedCredential: record)
        }
        #expect(badLogin?.code == "signature_invalid")
        let shortLogin = #expect(throws: WebAuthnError.self) {
            try verifier.verify(
                assertion(signature: Base64URL.encode(Array(signature.dropLast()))), expectedChallenge: loginChallenge, storedCredential: record)
        }
        #expect(shortLogin?.code == "signature_invalid")
    }

    /// Where the 114 bytes of `attStmt.sig` start: after the CBOR head `58 72` (a 114-byte byte string).
    static func signatureOffset(in attestationObject: [UInt8]) -> Int? {
        let head: [UInt8] = [0x63, 0x73, 0x69, 0x67, 0x58, 0x72] // "sig", bytes(114)
        guard attestationObject.count > head.count else { return nil }
        for start in 0...(attestationObject.count - head.count) where Array(attestationObject[start..<start + head.count]) == head {
            return start + head.count
        }
        return nil
    }
}
