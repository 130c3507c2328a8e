#if canImport(CLibCrypto)
import CLibCrypto
#endif

/// An Ed448 public key (RFC 8032 §5.2), for COSE's EdDSA on curve Ed448 (alg -8 with crv 7, or -53).
/// swift-crypto has no Ed448 and Latchkey implements no curve itself, so signatures are checked by the
/// system's OpenSSL libcrypto (the `CLibCrypto` target, Linux only): pure Ed448 with an empty context, as
/// COSE (RFC 9053 §2.2) and WebAuthn use it, never Ed448ph.
///
/// Sizes are checked here, before any byte reaches OpenSSL: a key is exactly 57 bytes, a signature exactly
/// 114. OpenSSL decodes the point and checks the signature's scalar is canonical on each verification;
/// every object it allocates is freed before `isValidSignature` returns, and its error queue is emptied.
struct Ed448PublicKey: Sendable {
    static let keySize = 57
    static let signatureSize = 114

    /// Whether this build can verify Ed448: true where libcrypto is linked (Linux).
    static var isAvailable: Bool {
        #if canImport(CLibCrypto)
        true
        #else
        false
        #endif
    }

    /// The 57-byte encoded point, as COSE's `x` (-2) carries it.
    let rawRepresentation: [UInt8]

    /// Nil unless `rawRepresentation` is 57 bytes and this build can verify Ed448.
    init?(rawRepresentation: [UInt8]) {
        guard Self.isAvailable, rawRepresentation.count == Self.keySize else { return nil }
        self.rawRepresentation = rawRepresentation
    }

    /// Whether `signature` is this key's Ed448 signature of `data`. A signature of the wrong size, a key
    /// OpenSSL refuses and any failure inside OpenSSL are all `false`.
    func isValidSignature(_ signature: [UInt8], for data: [UInt8]) -> Bool {
        guard signature.count == Self.signatureSize, rawRepresentation.count == Self.keySize else { return false }
        #if canImport(CLibCrypto)
        // Failures leave entries in OpenSSL's per-thread error queue; nothing reads them, so none outlive this call.
        defer { ERR_clear_error() }
        let key = rawRepresentation.withUnsafeBufferPointer { raw in
            EVP_PKEY_new_raw_public_key(EVP_PKEY_ED448, nil, raw.baseAddress, raw.count)
        }
        guard let key else { return false }
        defer { EVP_PKEY_free(key) }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        // No digest (EdDSA hashes internally) and no parameters: pure Ed448, empty context string.
        guard EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1 else { return false }
        // An empty message still needs a valid pointer (a zero-length view of one byte).
        let message = data.isEmpty ? [0] : data
        let verified = signature.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { tbs in
                EVP_DigestVerify(context, sig.baseAddress, sig.count, tbs.baseAddress, data.count)
            }
        }
        return verified == 1
        #else
        return false
        #endif
    }
}
