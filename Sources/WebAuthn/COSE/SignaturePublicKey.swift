import Crypto
import _CryptoExtras
import X509

/// A public key ready to check signatures, whichever way it arrived: a credential's COSE key or an
/// attestation certificate's SubjectPublicKeyInfo. The key objects are built once, at parse time, so
/// verifying does no key decoding.
enum SignaturePublicKey: Sendable {
    case p256(P256.Signing.PublicKey)
    case p384(P384.Signing.PublicKey)
    case p521(P521.Signing.PublicKey)
    case ed25519(Curve25519.Signing.PublicKey)
    /// Only from a COSE key: X509 cannot read an Ed448 certificate key.
    case ed448(Ed448PublicKey)
    case rsa(_RSA.Signing.PublicKey)

    init?(certificateKey key: Certificate.PublicKey) {
        if let k = P256.Signing.PublicKey(key) { self = .p256(k) }
        else if let k = P384.Signing.PublicKey(key) { self = .p384(k) }
        else if let k = P521.Signing.PublicKey(key) { self = .p521(k) }
        else if let k = Curve25519.Signing.PublicKey(key) { self = .ed25519(k) }
        else if let k = _RSA.Signing.PublicKey(key) { self = .rsa(k) }
        else { return nil }
    }

    /// The largest RSA modulus accepted anywhere (credential keys, attestation certificates, JWS): real
    /// authenticators use 2048 bits (Windows Hello's TPM keys), and checking a signature costs time that
    /// grows with the square of the size, so a larger key is refused before it is used.
    static let maximumRSABits = 4096

    /// The RSA modulus size when it is over `maximumRSABits`; nil for every other key.
    var oversizedRSABits: Int? {
        guard case .rsa(let key) = self, key.keySizeInBits > Self.maximumRSABits else { return nil }
        return key.keySizeInBits
    }

    /// The key in a canonical form for comparing two keys of any origin (COSE or certificate).
    var canonicalBytes: [UInt8] {
        switch self {
        case .p256(let key): [1] + Array(key.x963Representation)
        case .p384(let key): [2] + Array(key.x963Representation)
        case .p521(let key): [3] + Array(key.x963Representation)
        case .ed25519(let key): [4] + Array(key.rawRepresentation)
        case .rsa(let key): [5] + Array(key.pkcs1DERRepresentation)
        case .ed448(let key): [6] + key.rawRepresentation
        }
    }

    /// Whether `algorithm` is one this key can be used with (key type and curve agree).
    func fits(_ algorithm: COSEAlgorithm) -> Bool {
        switch (self, algorithm) {
        case (.p256, .es256), (.p384, .es384), (.p521, .es512): true
        case (.ed25519, .edDSA), (.ed25519, .ed25519): true
        case (.ed448, .edDSA), (.ed448, .ed448): true
        case (.rsa, .rs256), (.rsa, .rs384), (.rsa, .rs512), (.rsa, .ps256), (.rsa, .ps384), (.rsa, .ps512), (.rsa, .rs1):
            true
        default: false
        }
    }

    /// Checks `signature` over `data` with `algorithm`. ECDSA signatures are DER-encoded (WebAuthn §6.5.5);
    /// EdDSA signatures are the raw 64 (Ed25519) or 114 (Ed448) bytes; RSA signatures are the raw
    /// modulus-sized integer.
    func isValidSignature(_ signature: [UInt8], for data: [UInt8], algorithm: COSEAlgorithm) -> Bool {
        guard fits(algorithm) else { return false }
        switch self {
        case .p256(let key):
            guard let sig = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(sig, for: data)
        case .p384(let key):
            guard let sig = try? P384.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(sig, for: data)
        case .p521(let key):
            guard let sig = try? P521.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(sig, for: data)
        case .ed25519(let key):
            return key.isValidSignature(signature, for: data)
        case .ed448(let key):
            return key.isValidSignature(signature, for: data)
        case .rsa(let key):
            let sig = _RSA.Signing.RSASignature(rawRepresentation: signature)
            switch algorithm {
            case .rs256: return key.isValidSignature(sig, for: SHA256.hash(data: data), padding: .insecurePKCS1v1_5)
            case .rs384: return key.isValidSignature(sig, for: SHA384.hash(data: data), padding: .insecurePKCS1v1_5)
            case .rs512: return key.isValidSignature(sig, for: SHA512.hash(data: data), padding: .insecurePKCS1v1_5)
            case .rs1: return key.isValidSignature(sig, for: Insecure.SHA1.hash(data: data), padding: .insecurePKCS1v1_5)
            case .ps256: return key.isValidSignature(sig, for: SHA256.hash(data: data), padding: .PSS)
            case .ps384: return key.isValidSignature(sig, for: SHA384.hash(data: data), padding: .PSS)
            case .ps512: return key.isValidSignature(sig, for: SHA512.hash(data: data), padding: .PSS)
            default: return false
            }
        }
    }
}
