import Foundation
@_spi(FixedExpiryValidationTime) import X509

/// §7.1 steps 24–25: find the acceptable trust anchors for the statement and check that its trust
/// path leads to one of them at the verification time.
enum AttestationTrust {
    enum Assessment {
        /// No certificates to assess (none, self).
        case notApplicable
        /// Certificates, but no anchor configured for this format or AAGUID.
        case noAnchors
        /// The chain validated to a configured anchor.
        case verified
    }

    static func assess(
        _ outcome: AttestationOutcome, format: String, aaguid: [UInt8], anchors: TrustAnchors, time: Date
    ) async throws(WebAuthnError) -> Assessment {
        guard let leaf = outcome.trustPath.first else { return .notApplicable }
        let roots = anchors.roots(format: format, aaguid: aaguid)
        guard !roots.isEmpty else { return .noAnchors }
        var verifier = Verifier(rootCertificates: CertificateStore(roots)) {
            RFC5280Policy(fixedExpiryValidationTime: time)
            AttestationExtensionsPolicy()
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore(outcome.trustPath.dropFirst()))
        switch result {
        case .validCertificate:
            return .verified
        case .couldNotValidate(let failures):
            let reason = failures.first.map { "\($0.policyFailureReason)" } ?? "no chain to a configured root"
            throw WebAuthnError(.attestationChainInvalid(format: format, reason: reason))
        }
    }
}
