import Foundation

/// Why a FIDO metadata BLOB was not accepted: which check failed, and one sentence for the operator.
public struct MetadataBLOBError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// Larger than `MetadataBLOB.maximumSize`.
        case tooLarge
        /// Not a compact JWS with a JSON header of `alg` and `x5c`.
        case malformed
        /// An `alg` other than ES256 and RS256.
        case unsupportedAlgorithm
        /// The signature is not the signing certificate's over the header and payload.
        case signatureInvalid
        /// The `x5c` chain does not lead to a configured root (at the time of loading).
        case chainInvalid
        /// The signing certificate is not issued to the name the trust requires (`mds.fidoalliance.org`).
        case wrongSigner
        /// The payload is not a metadata BLOB payload (`no`, `nextUpdate`, `entries`).
        case payloadMalformed
        /// No `legalHeader`: the payload's terms of use are missing.
        case legalHeaderMissing
        /// `nextUpdate` is in the past.
        case expired
        /// An entry is not what MDS3 says an entry is (the sentence names it).
        case entryMalformed
    }

    public let reason: Reason
    /// One sentence, without a final period, naming what was wrong.
    public let description: String

    public init(_ reason: Reason, _ description: String) {
        self.reason = reason
        self.description = description
    }
}
