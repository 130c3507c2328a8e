import WebAuthn

/// The FIDO metadata's say on a new passkey: a model whose latest status report is a compromise
/// (`AuthenticatorStatus.compromised`) is refused (403 `authenticator_not_allowed`), in words a person
/// understands, with the status's own name for whoever reads the trail.
enum MetadataRefusal {
    /// Why a passkey of the model `record` describes (called `name`) may not register; nil when it may.
    static func refusal(_ record: MetadataRecord, name: String) -> String? {
        guard let status = record.status, status.isCompromised else { return nil }
        let what = switch status {
        case .revoked: "has been revoked: the FIDO Alliance no longer vouches for it"
        case .attestationKeyCompromise: "has a leaked attestation key, so it cannot prove it is genuine"
        case .userVerificationBypass: "has a known flaw that lets someone skip its PIN or fingerprint check"
        case .userKeyRemoteCompromise: "has a known flaw that lets its passkeys be stolen remotely"
        case .userKeyPhysicalCompromise: "has a known flaw that lets someone holding it copy its passkeys"
        default: "is reported compromised"
        }
        return "\(name) \(what) (FIDO metadata status \(status.rawValue)); use another passkey provider or security key."
    }
}
