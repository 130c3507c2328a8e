import Foundation
import LatchkeyAPI
import WebAuthn

/// Which authenticators may register, as the operator set it (`--require-attestation`,
/// `--allow-aaguid`, `--deny-aaguid`, `--passkeys`): checked on every new passkey after WebAuthn's own
/// verification, each refusal a sentence a person understands (403 `authenticator_not_allowed`).
/// Passkeys registered before a stricter policy keep working; `violations(of:)` lists what a stored one
/// breaks (`latchkey admin passkeys list --violating-policy`).
struct AuthenticatorPolicy: Sendable {
    /// Which passkeys, by backup eligibility (BE): any; synced only (BE=1: they survive the loss of a
    /// device); device-bound only (BE=0: security keys, some platform authenticators).
    typealias Kinds = ServerConfiguration.PasskeyKinds

    let requireAttestation: Bool
    /// Nil: any AAGUID (but the denied).
    let allowed: Set<[UInt8]>?
    let denied: Set<[UInt8]>
    let kinds: Kinds
    let providers: PasskeyProviders

    /// The configuration's lists, each entry an AAGUID or a provider's name from the bundled list.
    init(configuration: ServerConfiguration, providers: PasskeyProviders) throws {
        func resolve(_ entries: [String], _ flag: String) throws -> Set<[UInt8]> {
            var found = Set<[UInt8]>()
            for entry in entries {
                if let bytes = PasskeyProviders.bytes(uuid: entry.lowercased()) {
                    found.insert(bytes)
                } else {
                    let named = providers.aaguids(named: entry)
                    guard !named.isEmpty else {
                        throw ServerConfiguration.Invalid(
                            description: "\(flag) \(entry) is neither an AAGUID (8-4-4-4-12 hex) nor a provider's name in the bundled list")
                    }
                    found.formUnion(named)
                }
            }
            return found
        }
        requireAttestation = configuration.requireAttestation
        allowed = configuration.allowAAGUIDs.isEmpty ? nil : try resolve(configuration.allowAAGUIDs, "--allow-aaguid")
        denied = try resolve(configuration.denyAAGUIDs, "--deny-aaguid")
        kinds = configuration.passkeyKinds
        self.providers = providers
    }

    /// Why a new passkey may not register here, in words for the person; nil when it may.
    func refusal(aaguid: [UInt8], backupEligible: Bool, attestationType: AttestationType) -> String? {
        violations(aaguid: aaguid, backupEligible: backupEligible, unattested: attestationType == .none || attestationType == .self).first
    }

    /// What a stored passkey breaks of this policy (empty: nothing). A stored passkey keeps only its
    /// attestation format, so `none` stands for "unattested" here.
    func violations(of credential: CredentialRecord) -> [String] {
        violations(aaguid: credential.aaguid, backupEligible: credential.backupEligible, unattested: credential.attestationFormat == "none")
    }

    private func violations(aaguid: [UInt8], backupEligible: Bool, unattested: Bool) -> [String] {
        let name = providers.provider(aaguid: aaguid)?.name ?? "This authenticator"
        var found: [String] = []
        if denied.contains(aaguid) {
            found.append("\(name) is not accepted by this service; use another passkey provider or security key.")
        }
        if let allowed, !allowed.contains(aaguid) {
            found.append("\(name) is not one of the authenticators this service accepts; use one it lists.")
        }
        if requireAttestation, unattested {
            found.append("This service accepts only authenticators that prove their make and model (attestation); this one did not.")
        }
        switch kinds {
        case .any: break
        case .synced where !backupEligible:
            found.append("This service accepts only passkeys that sync across your devices; this one is bound to one device.")
        case .deviceBound where backupEligible:
            found.append("This service accepts only passkeys bound to one device (such as a security key); this one can be synced.")
        default: break
        }
        return found
    }
}
