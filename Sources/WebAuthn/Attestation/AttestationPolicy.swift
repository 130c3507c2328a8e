import SwiftASN1
import X509

/// Extensions attestation certificates mark critical that the format's own checks handle (the TPM AIK
/// certificate's subject alternative name, for one), or that carry no rule WebAuthn asks a relying party
/// to enforce (Windows TPM AIK certificates mark their certificate policies critical; §8.3.1 does not
/// constrain them). Declaring them lets the RFC 5280 chain validation accept such certificates instead of
/// refusing an "unhandled critical extension".
struct AttestationExtensionsPolicy: VerifierPolicy {
    let verifyingCriticalExtensions: [ASN1ObjectIdentifier] = [
        .X509ExtensionID.subjectAlternativeName, .X509ExtensionID.extendedKeyUsage, [2, 5, 29, 32],
    ]

    func chainMeetsPolicyRequirements(chain: UnverifiedCertificateChain) async -> PolicyEvaluationResult {
        .meetsPolicy
    }
}
