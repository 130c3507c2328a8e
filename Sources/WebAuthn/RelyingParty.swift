import Foundation

/// Everything a relying party decides once and applies to every ceremony: who it is, which origins
/// may speak for it, and its policies. Verifiers take it as a value; nothing here is global.
public struct RelyingParty: Sendable {
    public enum UserVerificationPolicy: String, Sendable, Codable {
        /// UV must be set on every registration and authentication.
        case required
        /// Asked for, not enforced (WebAuthn's "preferred").
        case preferred
        /// Not asked for (WebAuthn's "discouraged").
        case discouraged
    }

    public enum SignCountPolicy: Sendable {
        /// A counter that did not grow fails the authentication (§7.2 step 23).
        case reject
        /// The authentication succeeds and the result carries `possibleClone = true`.
        case report
    }

    /// The RP ID: a registrable domain suffix of the origins' hosts (e.g. `example.com`, `localhost`).
    public var id: String
    public var name: String
    /// Origins accepted in clientDataJSON, matched exactly (scheme, host and port); never by suffix.
    public var origins: [String]
    public var userVerification: UserVerificationPolicy
    /// Credential algorithms accepted at registration, in order of preference (what `pubKeyCredParams` offers).
    public var allowedAlgorithms: [COSEAlgorithm]
    /// Whether a ceremony run inside a cross-origin iframe (`crossOrigin: true`) is accepted.
    public var allowCrossOrigin: Bool
    /// Top-level origins a cross-origin ceremony may be embedded in (checked when `topOrigin` is sent).
    public var allowedTopOrigins: [String]
    public var signCountPolicy: SignCountPolicy
    /// Roots that attestation certificate chains are validated against.
    public var trustAnchors: TrustAnchors
    /// Policy for `android-safetynet` attestations (§8.5 leaves both checks to the relying party).
    public struct SafetyNetPolicy: Sendable {
        /// Require `ctsProfileMatch: true` (the device passed Android compatibility checks).
        public var requireCTSProfileMatch = true
        /// Refuse responses older than this (seconds); nil skips the freshness check.
        public var maximumAge: TimeInterval? = 60
        /// How far in the future a response's timestamp may be (clock skew).
        public var allowedClockSkew: TimeInterval = 60
        public init() {}
    }

    public var safetyNet = SafetyNetPolicy()
    /// Whether a registration whose attestation chain could not be validated to an anchor is refused
    /// (§7.1 step 29). Off by default: passkeys mostly come with `none` attestation.
    public var requireTrustedAttestation: Bool

    /// The algorithms Latchkey offers by default, best first. RS1 is never on by default; Ed448 (-53) only
    /// where this build can verify it (`COSEAlgorithm.isVerifiable`).
    public static let defaultAlgorithms: [COSEAlgorithm] = [
        .es256, .edDSA, .ed25519, .ed448, .es384, .es512, .rs256, .ps256, .rs384, .rs512, .ps384, .ps512,
    ].filter(\.isVerifiable)

    public init(
        id: String, name: String, origins: [String], userVerification: UserVerificationPolicy = .required,
        allowedAlgorithms: [COSEAlgorithm] = RelyingParty.defaultAlgorithms, allowCrossOrigin: Bool = false,
        allowedTopOrigins: [String] = [], signCountPolicy: SignCountPolicy = .reject,
        trustAnchors: TrustAnchors = TrustAnchors(), requireTrustedAttestation: Bool = false
    ) {
        self.id = id
        self.name = name
        self.origins = origins
        self.userVerification = userVerification
        self.allowedAlgorithms = allowedAlgorithms
        self.allowCrossOrigin = allowCrossOrigin
        self.allowedTopOrigins = allowedTopOrigins
        self.signCountPolicy = signCountPolicy
        self.trustAnchors = trustAnchors
        self.requireTrustedAttestation = requireTrustedAttestation
    }

    /// An origin as configured, in its serialized form: `https://example.com/` is the URL of the origin
    /// `https://example.com`, so one trailing slash after the host is dropped. Nothing else is rewritten.
    static func serializedOrigin(_ origin: String) -> String {
        guard origin.hasSuffix("/"), let schemeEnd = origin.range(of: "://") else { return origin }
        let rest = origin[schemeEnd.upperBound...].dropLast()
        return rest.contains("/") ? origin : String(origin.dropLast())
    }

    func acceptsOrigin(_ origin: String) -> Bool {
        origins.contains { Self.serializedOrigin($0) == origin }
    }

    func acceptsTopOrigin(_ origin: String) -> Bool {
        allowedTopOrigins.contains { Self.serializedOrigin($0) == origin }
    }
}
