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

    /// 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z: the range of "now" that chain validation accepts.
    static let earliestX509Time = Date(timeIntervalSince1970: -62_135_596_800)
    static let latestX509Time = Date(timeIntervalSince1970: 253_402_300_799)

    static func assess(
        _ outcome: AttestationOutcome, format: String, aaguid: [UInt8], anchors: TrustAnchors, time: Date
    ) async throws(WebAuthnError) -> Assessment {
        guard let leaf = outcome.trustPath.first else { return .notApplicable }
        let roots = anchors.roots(format: format, aaguid: aaguid)
        guard !roots.isEmpty else { return .noAnchors }
        // X.509 times are years 0000–9999 (GeneralizedTime), and swift-certificates traps on a "now" it
        // cannot write as one; `latchkey verify` reads "now" from its document (ISO 8601 allows year 10000).
        guard time >= earliestX509Time, time <= latestX509Time else {
            throw WebAuthnError(.attestationChainInvalid(
                format: format, reason: "the verification time is outside the years 0001–9999 that X.509 times can hold"))
        }
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
