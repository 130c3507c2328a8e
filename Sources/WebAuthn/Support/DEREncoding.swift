import SwiftASN1
import X509

enum DEREncoding {
    /// The DER bytes of a certificate that was parsed from DER (serializing it again cannot fail in
    /// practice; an empty array stands for the impossible case rather than a crash).
    static func bytes(of certificate: Certificate) -> [UInt8] {
        var serializer = DER.Serializer()
        do {
            try serializer.serialize(certificate)
        } catch {
            return []
        }
        return serializer.serializedBytes
    }
}
