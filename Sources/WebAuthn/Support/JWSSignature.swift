import Crypto
import X509
import _CryptoExtras

/// A compact JWS's signature checked with a certificate's key: what `android-safetynet` statements and
/// FIDO metadata BLOBs both are (a JWS whose `x5c` header carries the signer's chain).
enum JWSSignature {
    /// RS256 (PKCS#1 v1.5, SHA-256) or ES256 (JWS signatures are raw r ‖ s, not DER); any other `alg`,
    /// or one the key does not fit, is false. An RSA key over `SignaturePublicKey.maximumRSABits` is
    /// refused by the callers before this.
    static func isValid(_ signature: [UInt8], over data: [UInt8], alg: String, certificate: Certificate) -> Bool {
        switch (alg, SignaturePublicKey(certificateKey: certificate.publicKey)) {
        case ("RS256", .rsa(let key)?):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: SHA256.hash(data: data), padding: .insecurePKCS1v1_5)
        case ("ES256", .p256(let key)?):
            guard let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(ecdsa, for: data)
        default:
            return false
        }
    }
}
