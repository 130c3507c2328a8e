import CBOR
import Foundation
import X509

/// What every attestation statement format's verification procedure (§8) is given.
struct AttestationInput {
    /// The statement as a map (empty when it is not one: `compound` statements are arrays).
    var statement: CBORMap { rawStatement.mapValue ?? CBORMap() }
    let rawStatement: CBORValue
    let authenticatorData: AuthenticatorData
    let credential: AuthenticatorData.AttestedCredentialData
    let clientDataHash: [UInt8]
    let relyingParty: RelyingParty
    let verificationTime: Date

    /// The same ceremony with another statement (a part of a compound statement).
    func replacingStatement(with statement: CBORValue) -> AttestationInput {
        AttestationInput(
            rawStatement: statement, authenticatorData: authenticatorData, credential: credential, clientDataHash: clientDataHash,
            relyingParty: relyingParty, verificationTime: verificationTime)
    }
}

/// What a format's verification procedure returns on success (§7.1 step 23): the attestation type and
/// the trust path that step 25 assesses.
struct AttestationOutcome {
    let type: AttestationType
    /// The attestation certificate first, then the rest of x5c; empty for none and self attestation.
    let trustPath: [Certificate]
}

/// One attestation statement format (§8.x). Each checks only the rules of its own section and throws an
/// error that names the broken rule.
protocol AttestationStatementFormat: Sendable {
    static var identifier: String { get }
    func verify(_ input: AttestationInput) throws(WebAuthnError) -> AttestationOutcome
}

/// The formats this library verifies, by their registered identifier (§7.1 step 22: USASCII,
/// case-sensitive match).
enum AttestationFormats {
    static let all: [String: any AttestationStatementFormat] = [
        NoneAttestation.identifier: NoneAttestation(),
        PackedAttestation.identifier: PackedAttestation(),
        FIDOU2FAttestation.identifier: FIDOU2FAttestation(),
        AppleAttestation.identifier: AppleAttestation(),
        AndroidKeyAttestation.identifier: AndroidKeyAttestation(),
        TPMAttestationFormat.identifier: TPMAttestationFormat(),
        AndroidSafetyNetAttestation.identifier: AndroidSafetyNetAttestation(),
        CompoundAttestation.identifier: CompoundAttestation(),
    ]

    static func format(named identifier: String) throws(WebAuthnError) -> any AttestationStatementFormat {
        guard let format = all[identifier] else { throw WebAuthnError(.unsupportedAttestationFormat(identifier)) }
        return format
    }
}
