import WebAuthn

/// WebAuthn's `userVerification`, as AuthenticationServices' `userVerificationPreference` takes it.
public enum PlatformUserVerification: String, Sendable, Equatable, CaseIterable {
    case required, preferred, discouraged

    /// The member's value; absent or unknown values are `preferred`, as WebAuthn §5.8.6 says a client treats them.
    init(_ value: String?) {
        self = value.flatMap(Self.init(rawValue:)) ?? .preferred
    }
}

/// WebAuthn's `attestation` conveyance, as AuthenticationServices' `attestationPreference` takes it.
public enum PlatformAttestation: String, Sendable, Equatable, CaseIterable {
    case none, indirect, direct, enterprise

    /// The member's value; absent or unknown values are `none`, as WebAuthn §5.4.7 says a client treats them.
    init(_ value: String?) {
        self = value.flatMap(Self.init(rawValue:)) ?? PlatformAttestation.none
    }
}

/// What `ASAuthorizationPlatformPublicKeyCredentialProvider(relyingPartyIdentifier:)` and
/// `createCredentialRegistrationRequest(challenge:name:userID:)` need, decoded and checked from the
/// server's `PublicKeyCredentialCreationOptionsJSON`. It is plain data so that Linux tests hold the
/// mapping to real ceremonies; only the AuthenticationServices provider turns it into framework objects.
///
/// Members the platform API has no place for are dropped: `timeout`, `hints`, `pubKeyCredParams`
/// (checked to offer ES256, the only key the platform makes), `authenticatorSelection.residentKey`
/// (platform passkeys are always discoverable) and `attestationFormats`.
public struct PlatformRegistrationRequest: Sendable, Equatable {
    /// `rp.id`, or the origin's host when the options leave it out (as a browser would default it).
    public var relyingPartyIdentifier: String
    public var challenge: [UInt8]
    /// `user.name`: the account name the passkey sheet and the password manager show.
    public var userName: String
    public var userDisplayName: String
    /// `user.id`, the user handle (1 to 64 bytes).
    public var userID: [UInt8]
    public var userVerification: PlatformUserVerification
    public var attestation: PlatformAttestation
    /// `excludeCredentials` ids: the account's passkeys, so that the device does not make a second one.
    public var excludedCredentialIDs: [[UInt8]]
    /// Whether the options asked for the credProps extension; the response then reports `rk: true`.
    public var credentialPropertiesRequested: Bool

    public init(
        relyingPartyIdentifier: String, challenge: [UInt8], userName: String, userDisplayName: String, userID: [UInt8],
        userVerification: PlatformUserVerification = .preferred, attestation: PlatformAttestation = .none,
        excludedCredentialIDs: [[UInt8]] = [], credentialPropertiesRequested: Bool = false
    ) {
        self.relyingPartyIdentifier = relyingPartyIdentifier
        self.challenge = challenge
        self.userName = userName
        self.userDisplayName = userDisplayName
        self.userID = userID
        self.userVerification = userVerification
        self.attestation = attestation
        self.excludedCredentialIDs = excludedCredentialIDs
        self.credentialPropertiesRequested = credentialPropertiesRequested
    }

    /// Decodes and checks `options` as the server sent them; `origin` supplies the RP ID when `rp.id` is absent.
    public init(options: PublicKeyCredentialCreationOptionsJSON, origin: String) throws(PlatformMappingError) {
        let rpId = try RelyingPartyIdentifier.resolve(options.rp.id, origin: origin)
        let challenge = try Bytes.decode(options.challenge, member: "challenge")
        let userID = try Bytes.decode(options.user.id, member: "user.id", allowEmpty: true)
        guard (1...64).contains(userID.count) else { throw .userHandleLength(userID.count) }
        guard !options.user.name.isEmpty else { throw .missing(member: "user.name") }
        // WebAuthn §5.1.3 step 10: an empty pubKeyCredParams means ES256 and RS256.
        let offered = options.pubKeyCredParams.filter { $0.type == "public-key" }.map(\.alg)
        guard options.pubKeyCredParams.isEmpty || offered.contains(COSEAlgorithm.es256.rawValue) else {
            throw .es256NotOffered(options.pubKeyCredParams.map(\.alg))
        }
        var excluded: [[UInt8]] = []
        for (index, descriptor) in (options.excludeCredentials ?? []).enumerated() where descriptor.type == "public-key" {
            excluded.append(try Bytes.decode(descriptor.id, member: "excludeCredentials[\(index)].id"))
        }
        self.init(
            relyingPartyIdentifier: rpId, challenge: challenge, userName: options.user.name,
            userDisplayName: options.user.displayName, userID: userID,
            userVerification: PlatformUserVerification(options.authenticatorSelection?.userVerification),
            attestation: PlatformAttestation(options.attestation), excludedCredentialIDs: excluded,
            credentialPropertiesRequested: options.extensions?.credProps == true)
    }
}

/// What `ASAuthorizationPlatformPublicKeyCredentialProvider.createCredentialAssertionRequest(challenge:)`
/// needs, decoded and checked from the server's `PublicKeyCredentialRequestOptionsJSON`. Latchkey's login
/// sends an empty `allowCredentials` (discoverable login), so `allowedCredentialIDs` is usually empty and
/// the platform offers every passkey it holds for the RP.
public struct PlatformAssertionRequest: Sendable, Equatable {
    /// `rpId`, or the origin's host when the options leave it out.
    public var relyingPartyIdentifier: String
    public var challenge: [UInt8]
    public var userVerification: PlatformUserVerification
    public var allowedCredentialIDs: [[UInt8]]

    public init(
        relyingPartyIdentifier: String, challenge: [UInt8], userVerification: PlatformUserVerification = .preferred,
        allowedCredentialIDs: [[UInt8]] = []
    ) {
        self.relyingPartyIdentifier = relyingPartyIdentifier
        self.challenge = challenge
        self.userVerification = userVerification
        self.allowedCredentialIDs = allowedCredentialIDs
    }

    /// Decodes and checks `options` as the server sent them; `origin` supplies the RP ID when `rpId` is absent.
    public init(options: PublicKeyCredentialRequestOptionsJSON, origin: String) throws(PlatformMappingError) {
        let rpId = try RelyingPartyIdentifier.resolve(options.rpId, origin: origin)
        let challenge = try Bytes.decode(options.challenge, member: "challenge")
        var allowed: [[UInt8]] = []
        for (index, descriptor) in (options.allowCredentials ?? []).enumerated() where descriptor.type == "public-key" {
            allowed.append(try Bytes.decode(descriptor.id, member: "allowCredentials[\(index)].id"))
        }
        self.init(
            relyingPartyIdentifier: rpId, challenge: challenge,
            userVerification: PlatformUserVerification(options.userVerification), allowedCredentialIDs: allowed)
    }
}

/// The RP ID a request is scoped to.
enum RelyingPartyIdentifier {
    /// `explicit` when the options carry one, else the host of `origin` (WebAuthn's default: the origin's
    /// effective domain). The platform itself checks the RP ID against the app's associated domains.
    static func resolve(_ explicit: String?, origin: String) throws(PlatformMappingError) -> String {
        if let explicit {
            guard !explicit.isEmpty else { throw .missing(member: "rp.id") }
            return explicit
        }
        guard let host = host(of: origin) else { throw .noRelyingPartyIdentifier(origin: origin) }
        return host
    }

    /// The host of a serialized origin (`scheme://host[:port]`), lowercased; nil when there is none.
    static func host(of origin: String) -> String? {
        guard let schemeEnd = origin.range(of: "://") else { return nil }
        let authority = origin[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        // A bracketed IPv6 literal is no RP ID; userinfo has no place in an origin.
        guard !authority.hasPrefix("["), !authority.contains("@") else { return nil }
        let host = authority.prefix { $0 != ":" }.lowercased()
        return host.isEmpty ? nil : host
    }
}
