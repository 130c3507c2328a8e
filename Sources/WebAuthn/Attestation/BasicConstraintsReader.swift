import SwiftASN1
import X509

/// Reads the CA flag of a certificate's basic constraints, tolerating the one non-DER form real
/// attestation certificates use: an explicit `cA FALSE` (Chrome's virtual authenticator, among others),
/// which a DER decoder rejects because FALSE is the default. The meaning is unambiguous, so it is read
/// with BER rules.
enum BasicConstraintsReader {
    /// Whether the certificate claims to be a CA: false when the extension is absent; nil when malformed.
    static func isCertificateAuthority(_ certificate: Certificate) -> Bool? {
        guard let ext = certificate.extensions[oid: .X509ExtensionID.basicConstraints] else { return false }
        if let parsed = try? BasicConstraints(ext) {
            if case .isCertificateAuthority = parsed { return true }
            return false
        }
        guard let node = try? BER.parse(Array(ext.value)), node.identifier == .sequence,
              case .constructed(let children) = node.content
        else { return nil }
        var iterator = children.makeIterator()
        guard let first = iterator.next() else { return false }
        guard first.identifier == .boolean else { return false }
        guard case .primitive(let bytes) = first.content, bytes.count == 1, let flag = bytes.first else { return nil }
        return flag != 0
    }
}
