import CBOR
import Crypto
import Foundation
import WebAuthn

/// A credential's private key, of one of the two algorithms the software authenticator makes.
enum CredentialKey {
    case es256(P256.Signing.PrivateKey)
    case ed25519(Curve25519.Signing.PrivateKey)

    /// Algorithms in the order the authenticator supports them; the RP's order decides among them.
    static let supportedAlgorithms: [COSEAlgorithm] = [.es256, .edDSA, .ed25519]

    static func generate(_ algorithm: COSEAlgorithm) -> CredentialKey {
        algorithm == .es256 ? .es256(P256.Signing.PrivateKey()) : .ed25519(Curve25519.Signing.PrivateKey())
    }

    init(stored passkey: StoredPasskey) throws(SoftAuthenticatorError) {
        guard let raw = Base64URL.decode(passkey.privateKey) else { throw .store("private key of \(passkey.credentialId) is not base64url") }
        do {
            switch passkey.algorithm {
            case COSEAlgorithm.es256.rawValue: self = .es256(try P256.Signing.PrivateKey(rawRepresentation: raw))
            case COSEAlgorithm.edDSA.rawValue, COSEAlgorithm.ed25519.rawValue:
                self = .ed25519(try Curve25519.Signing.PrivateKey(rawRepresentation: raw))
            default: throw SoftAuthenticatorError.store("credential \(passkey.credentialId) has unsupported algorithm \(passkey.algorithm)")
            }
        } catch let error as SoftAuthenticatorError {
            throw error
        } catch {
            throw .store("private key of \(passkey.credentialId) is unusable")
        }
    }

    var rawPrivateKey: [UInt8] {
        switch self {
        case .es256(let key): Array(key.rawRepresentation)
        case .ed25519(let key): Array(key.rawRepresentation)
        }
    }

    /// The credential public key as a CTAP2-canonical COSE_Key.
    func coseKey(algorithm: COSEAlgorithm) -> [UInt8] {
        let pairs: [(CBORValue, CBORValue)]
        switch self {
        case .es256(let key):
            let point = Array(key.publicKey.x963Representation)
            pairs = [(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)),
                     (.int(-2), .bytes(Array(point[1...32]))), (.int(-3), .bytes(Array(point[33...64])))]
        case .ed25519(let key):
            pairs = [(.int(1), .int(1)), (.int(3), .int(Int64(algorithm.rawValue))), (.int(-1), .int(6)),
                     (.int(-2), .bytes(Array(key.publicKey.rawRepresentation)))]
        }
        return CBOREncoder().encode(.map(CBORMap(pairs) ?? CBORMap()))
    }

    /// SubjectPublicKeyInfo DER, what `AuthenticatorAttestationResponse.getPublicKey()` returns.
    var subjectPublicKeyInfo: [UInt8] {
        switch self {
        case .es256(let key): Array(key.publicKey.derRepresentation)
        case .ed25519(let key):
            // SEQUENCE { SEQUENCE { OID 1.3.101.112 }, BIT STRING { 0 unused bits, key } } (RFC 8410).
            [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00] + Array(key.publicKey.rawRepresentation)
        }
    }

    /// ECDSA signatures DER-encoded (WebAuthn §6.5.5); Ed25519 signatures raw.
    func sign(_ data: [UInt8]) throws(SoftAuthenticatorError) -> [UInt8] {
        do {
            switch self {
            case .es256(let key): return Array(try key.signature(for: data).derRepresentation)
            case .ed25519(let key): return Array(try key.signature(for: data))
            }
        } catch {
            throw .store("signing failed: \(error)")
        }
    }
}
