/// Attestation types (WebAuthn L3 §6.5.3), as a verified statement reports them.
public enum AttestationType: String, Sendable, Codable {
    /// No attestation statement (`none`).
    case none
    /// Signed by the credential's own key.
    case `self`
    /// Signed by a key whose certificate chains to the vendor (batch attestation).
    case basic
    /// Signed by a key certified by an attestation CA (TPM AIK certificates).
    case attCA
    /// Signed by a per-credential certificate from an anonymizing CA (Apple).
    case anonCA
}
