import CBOR
import Crypto
import _CryptoExtras

/// A credential public key in COSE_Key form (RFC 9052 §7, RFC 9053, RFC 8230), as WebAuthn §6.5.1.1
/// requires it: `alg` present, and key type, curve and algorithm in agreement.
public struct COSEKey: Sendable, Equatable {
    public enum KeyType: Int, Sendable {
        case okp = 1
        case ec2 = 2
        case rsa = 3
    }

    public let keyType: KeyType
    public let algorithm: COSEAlgorithm
    /// The encoded COSE_Key, byte for byte as received.
    public let bytes: [UInt8]
    let signingKey: SignaturePublicKey?
    /// The key's parameters as COSE gave them, for formats that compare them field by field (tpm).
    let material: Material

    enum Material: Sendable {
        case ec2(curve: Int64, x: [UInt8], y: [UInt8])
        case okp(curve: Int64, x: [UInt8])
        case rsa(n: [UInt8], e: [UInt8])
    }

    public static func == (a: COSEKey, b: COSEKey) -> Bool { a.bytes == b.bytes }

    /// Parses a COSE_Key from its encoding (a stored credential's public key).
    public init(bytes: [UInt8]) throws(WebAuthnError) {
        let value: CBORValue
        do {
            value = try CBORDecoder().decode(bytes)
        } catch {
            throw WebAuthnError(.publicKeyInvalid("not CBOR: \(error)"))
        }
        try self.init(value, bytes: bytes)
    }

    /// Parses a COSE_Key already decoded from `bytes`.
    init(_ value: CBORValue, bytes: [UInt8]) throws(WebAuthnError) {
        func invalid(_ reason: String) -> WebAuthnError { WebAuthnError(.publicKeyInvalid(reason)) }
        guard case .map(let map) = value else { throw invalid("COSE_Key is not a CBOR map") }
        guard let ktyValue = map[int: 1]?.int64Value else { throw invalid("kty (1) is missing or not an integer") }
        guard let kty = KeyType(rawValue: Int(ktyValue)) else { throw invalid("kty \(ktyValue) is not supported") }
        guard let algValue = map[int: 3]?.int64Value else { throw invalid("alg (3) is missing or not an integer") }
        guard algValue >= Int64(Int32.min), algValue <= Int64(Int32.max), let alg = COSEAlgorithm(rawValue: Int(algValue))
        else { throw WebAuthnError(.unsupportedAlgorithm(Int(clamping: algValue))) }
        self.keyType = kty
        self.algorithm = alg
        self.bytes = bytes

        switch kty {
        case .ec2:
            guard let crv = map[int: -1]?.int64Value else { throw invalid("EC2 crv (-1) is missing") }
            guard let x = map[int: -2]?.bytesValue else { throw invalid("EC2 x (-2) is missing or not a byte string") }
            // Compressed points (y as a boolean) are not allowed for WebAuthn credential keys.
            guard let y = map[int: -3]?.bytesValue else { throw invalid("EC2 y (-3) is missing or not a byte string") }
            let expected: (curve: Int64, size: Int)
            switch alg {
            case .es256: expected = (1, 32)
            case .es384: expected = (2, 48)
            case .es512: expected = (3, 66)
            default: throw invalid("algorithm \(alg.name) does not go with key type EC2")
            }
            guard crv == expected.curve else { throw invalid("curve \(crv) does not go with \(alg.name)") }
            guard x.count == expected.size, y.count == expected.size else {
                throw invalid("EC2 coordinates must be \(expected.size) bytes for \(alg.name)")
            }
            material = .ec2(curve: crv, x: x, y: y)
            let point = [0x04] + x + y
            do {
                switch alg {
                case .es256: signingKey = .p256(try P256.Signing.PublicKey(x963Representation: point))
                case .es384: signingKey = .p384(try P384.Signing.PublicKey(x963Representation: point))
                default: signingKey = .p521(try P521.Signing.PublicKey(x963Representation: point))
                }
            } catch {
                throw invalid("EC2 point is not on the curve")
            }
        case .okp:
            guard let crv = map[int: -1]?.int64Value else { throw invalid("OKP crv (-1) is missing") }
            guard let x = map[int: -2]?.bytesValue else { throw invalid("OKP x (-2) is missing or not a byte string") }
            material = .okp(curve: crv, x: x)
            switch (alg, crv) {
            case (.edDSA, 6), (.ed25519, 6):
                guard x.count == 32, let key = try? Curve25519.Signing.PublicKey(rawRepresentation: x) else {
                    throw invalid("Ed25519 key must be 32 bytes")
                }
                signingKey = .ed25519(key)
            case (.edDSA, 7), (.ed448, 7):
                guard x.count == Ed448PublicKey.keySize else { throw invalid("Ed448 key must be 57 bytes") }
                // Nil where this build has no libcrypto (not Linux): the key parses, and verifying with it
                // is `unsupported_algorithm`.
                signingKey = Ed448PublicKey(rawRepresentation: x).map { .ed448($0) }
            case (.edDSA, _), (.ed25519, _), (.ed448, _):
                throw invalid("curve \(crv) does not go with \(alg.name)")
            default:
                throw invalid("algorithm \(alg.name) does not go with key type OKP")
            }
        case .rsa:
            switch alg {
            case .rs256, .rs384, .rs512, .rs1, .ps256, .ps384, .ps512: break
            default: throw invalid("algorithm \(alg.name) does not go with key type RSA")
            }
            guard let n = map[int: -1]?.bytesValue, !n.isEmpty else { throw invalid("RSA n (-1) is missing") }
            guard let e = map[int: -2]?.bytesValue, !e.isEmpty else { throw invalid("RSA e (-2) is missing") }
            material = .rsa(n: n, e: e)
            let modulusBits = n.drop(while: { $0 == 0 }).count * 8
            guard modulusBits <= SignaturePublicKey.maximumRSABits else {
                throw invalid("RSA modulus is about \(modulusBits) bits, over the \(SignaturePublicKey.maximumRSABits)-bit limit")
            }
            let der = DERWriter.sequence([DERWriter.unsignedInteger(n), DERWriter.unsignedInteger(e)])
            guard let key = try? _RSA.Signing.PublicKey(unsafeDERRepresentation: der) else {
                throw invalid("RSA key is not usable (modulus under 1024 bits or malformed)")
            }
            signingKey = .rsa(key)
        }
    }

    /// Whether `signature` over `data` verifies with this key and its own algorithm.
    public func isValidSignature(_ signature: [UInt8], for data: [UInt8]) throws(WebAuthnError) -> Bool {
        guard let signingKey else { throw WebAuthnError(.unsupportedAlgorithm(algorithm.rawValue)) }
        return signingKey.isValidSignature(signature, for: data, algorithm: algorithm)
    }
}
