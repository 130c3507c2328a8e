import CBOR
import Crypto
import Foundation
import WebAuthn

/// A software passkey provider: it makes credentials and signs assertions, playing both the platform
/// client (it builds clientDataJSON and checks the RP ID against the origin, as a browser does) and the
/// authenticator (it builds authenticator data, attests and signs). Every credential gets its own random
/// id and its own key pair; keys live in a `CredentialStore`.
///
/// Its output is what an iOS credential-provider extension must produce, byte for byte: CTAP2-canonical
/// CBOR, DER ECDSA signatures, the flags and counter of the chosen backup style.
public struct SoftAuthenticator: Sendable {
    /// What the authenticator does when a relying party asks for attestation (`direct` or `enterprise`).
    public enum AttestationMode: String, Sendable, CaseIterable {
        /// Never attest: always `none`.
        case none
        /// `packed` self attestation, signed by the credential key.
        case `self`
        /// `packed` with an x5c certificate from the authenticator's own attestation CA.
        case packed
    }

    public enum BackupStyle: String, Sendable, CaseIterable {
        /// A synced passkey: BE = BS = 1 and a sign count that stays 0.
        case synced
        /// A device-bound key: BE = BS = 0 and a counter that grows with every use, kept across runs.
        case deviceBound = "device-bound"
    }

    /// Picks one of several candidate passkeys for a discoverable login, or nil to cancel.
    public typealias Chooser = @Sendable ([StoredPasskey]) -> StoredPasskey?

    /// This authenticator model's AAGUID: the ASCII bytes of "latchkeySoftAuth".
    public static let aaguid: [UInt8] = Array("latchkeySoftAuth".utf8)

    /// The AAGUID put in new credentials' authenticator data. Tests set a real passkey provider's (say
    /// Apple Passwords') to see how a relying party names it; `packed` attestation keeps the model's
    /// own, because its certificate names that one.
    public var aaguid: [UInt8] = SoftAuthenticator.aaguid

    public var store: any CredentialStore
    /// The "user verified" switch: whether the (simulated) user passed a biometric or PIN check.
    public var userVerified: Bool
    public var backupStyle: BackupStyle
    public var attestationMode: AttestationMode
    /// A synced passkey's provider has stopped syncing (say, the user turned iCloud Keychain off): its
    /// passkeys stay backup eligible (BE) but are no longer backed up (BS clear) until it is turned back
    /// on. Lets a relying party's handling of a changing backup state be tested.
    public var syncPaused = false
    public var now: @Sendable () -> Date

    public init(
        store: any CredentialStore, userVerified: Bool = true, backupStyle: BackupStyle = .synced,
        attestationMode: AttestationMode = .self, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.store = store
        self.userVerified = userVerified
        self.backupStyle = backupStyle
        self.attestationMode = attestationMode
        self.now = now
    }

    // MARK: - Registration

    /// `navigator.credentials.create()` for `options`, as the page at `origin` would call it.
    public func makeCredential(
        _ options: PublicKeyCredentialCreationOptionsJSON, origin: String
    ) throws(SoftAuthenticatorError) -> RegistrationResponseJSON {
        let rpId = try OriginCheck.rpId(options.rp.id, origin: origin)
        guard let challenge = Base64URL.decode(options.challenge), !challenge.isEmpty else {
            throw .invalidOptions("challenge is not base64url")
        }
        guard let userHandle = Base64URL.decode(options.user.id), (1...64).contains(userHandle.count) else {
            throw .invalidOptions("user.id must be 1 to 64 bytes of base64url")
        }
        let requested = options.pubKeyCredParams.filter { $0.type == "public-key" }.map(\.alg)
        guard let algorithm = requested.lazy.compactMap(COSEAlgorithm.init(rawValue:))
            .first(where: CredentialKey.supportedAlgorithms.contains)
        else { throw .noSupportedAlgorithm(options.pubKeyCredParams.map(\.alg)) }
        let selection = options.authenticatorSelection
        if selection?.userVerification == "required", !userVerified { throw .userVerificationUnavailable }

        var state = try store.load()
        let excluded = Set((options.excludeCredentials ?? []).compactMap { Base64URL.decode($0.id) })
        if state.passkeys.contains(where: { $0.rpId == rpId && excluded.contains(Base64URL.decode($0.credentialId) ?? []) }) {
            throw .credentialExcluded
        }
        let discoverable: Bool
        switch selection?.residentKey {
        case "required", "preferred": discoverable = true
        case "discouraged": discoverable = false
        default: discoverable = selection?.requireResidentKey ?? false
        }

        // prf (L3 §10.1.4): asked for, the credential gets its hmac-secret; evalByCredential has no meaning
        // for a credential that does not exist yet, and a client refuses it.
        let prfInputs = options.extensions?.prf
        if let byCredential = prfInputs?.evalByCredential, !byCredential.isEmpty {
            throw .invalidOptions("prf evalByCredential is not allowed when creating a passkey")
        }
        let prfSecret = prfInputs == nil ? nil : PRFEvaluation.newSecret()

        let key = CredentialKey.generate(algorithm)
        let credentialId = (0..<32).map { _ in UInt8.random(in: 0...255) }
        let coseKey = key.coseKey(algorithm: algorithm)
        let verified = userVerified && selection?.userVerification != "discouraged"
        var authData = header(rpId: rpId, verified: verified, attested: true, signCount: 0)
        if attestationMode == .packed, asksForAttestation(options), aaguid != Self.aaguid {
            throw .invalidOptions("packed attestation names the model's AAGUID; another AAGUID needs attestation none or self")
        }
        authData += aaguid
        authData += [UInt8(credentialId.count >> 8), UInt8(credentialId.count & 0xff)]
        authData += credentialId
        authData += coseKey
        let clientData = ClientData.json(type: "webauthn.create", challenge: challenge, origin: origin)
        let clientDataHash = Array(SHA256.hash(data: clientData))

        let mode = asksForAttestation(options) ? attestationMode : .none
        let (format, statement) = try attestationStatement(mode, key: key, algorithm: algorithm, signed: authData + clientDataHash, state: &state)
        let attestationObject = CBOREncoder().encode(.map(CBORMap([
            (.text("fmt"), .text(format)), (.text("attStmt"), .map(statement)), (.text("authData"), .bytes(authData)),
        ]) ?? CBORMap()))

        // A new discoverable credential for the same account replaces the old one, as CTAP2 authenticators do.
        let handleText = Base64URL.encode(userHandle)
        if discoverable { state.passkeys.removeAll { $0.rpId == rpId && $0.userHandle == handleText && $0.discoverable } }
        state.passkeys.append(StoredPasskey(
            rpId: rpId, userHandle: handleText, userName: options.user.name, userDisplayName: options.user.displayName,
            credentialId: Base64URL.encode(credentialId), algorithm: algorithm.rawValue,
            privateKey: Base64URL.encode(key.rawPrivateKey), signCount: 0, backedUp: backupStyle == .synced,
            discoverable: discoverable, createdAt: now(), lastUsedAt: nil, prfSecret: prfSecret.map { Base64URL.encode($0) }))
        let prf = try prfSecret.map { secret throws(SoftAuthenticatorError) in
            ClientExtensionResultsJSON.PRFOutputs(
                enabled: true, results: try prfInputs?.eval.map { values throws(SoftAuthenticatorError) in try PRFEvaluation.results(secret: secret, for: values) })
        }
        try store.save(state)

        let id = Base64URL.encode(credentialId)
        let credProps = options.extensions?.credProps == true ? ClientExtensionResultsJSON.CredentialProperties(rk: discoverable) : nil
        return RegistrationResponseJSON(
            id: id, rawId: id,
            response: AuthenticatorAttestationResponseJSON(
                clientDataJSON: Base64URL.encode(clientData), attestationObject: Base64URL.encode(attestationObject),
                authenticatorData: Base64URL.encode(authData), transports: ["internal"],
                publicKey: Base64URL.encode(key.subjectPublicKeyInfo), publicKeyAlgorithm: algorithm.rawValue),
            authenticatorAttachment: "platform", clientExtensionResults: ClientExtensionResultsJSON(credProps: credProps, prf: prf))
    }

    private func attestationStatement(
        _ mode: AttestationMode, key: CredentialKey, algorithm: COSEAlgorithm, signed: [UInt8], state: inout AuthenticatorState
    ) throws(SoftAuthenticatorError) -> (String, CBORMap) {
        switch mode {
        case .none:
            return ("none", CBORMap())
        case .self:
            let signature = try key.sign(signed)
            return ("packed", CBORMap([(.text("alg"), .int(Int64(algorithm.rawValue))), (.text("sig"), .bytes(signature))]) ?? CBORMap())
        case .packed:
            let authority = try attestationAuthority(&state)
            guard let certificate = Base64URL.decode(authority.attestationCertificate),
                  let raw = Base64URL.decode(authority.attestationPrivateKey),
                  let attestationKey = try? P256.Signing.PrivateKey(rawRepresentation: raw)
            else { throw .store("the attestation authority in the store is unusable") }
            let signature = try CredentialKey.es256(attestationKey).sign(signed)
            return ("packed", CBORMap([
                (.text("alg"), .int(-7)), (.text("sig"), .bytes(signature)), (.text("x5c"), .array([.bytes(certificate)])),
            ]) ?? CBORMap())
        }
    }

    /// The attestation authority, issued on first use and kept in the store.
    private func attestationAuthority(_ state: inout AuthenticatorState) throws(SoftAuthenticatorError) -> AttestationAuthority {
        if let existing = state.attestationAuthority { return existing }
        do {
            let authority = try AttestationAuthority.issue(aaguid: Self.aaguid, now: now())
            state.attestationAuthority = authority
            return authority
        } catch {
            throw .store("cannot issue attestation certificates: \(error)")
        }
    }

    /// The root of this authenticator's attestation chain (PEM), issuing it first if needed.
    public func attestationRootPEM() throws(SoftAuthenticatorError) -> String {
        var state = try store.load()
        let hadAuthority = state.attestationAuthority != nil
        let authority = try attestationAuthority(&state)
        if !hadAuthority { try store.save(state) }
        return try authority.rootPEM()
    }

    // MARK: - Authentication

    /// `navigator.credentials.get()` for `options` from the page at `origin`. With an empty
    /// allowCredentials the login is discoverable: `chooser` picks among this RP's passkeys (default:
    /// the most recently used).
    public func getAssertion(
        _ options: PublicKeyCredentialRequestOptionsJSON, origin: String, chooser: Chooser? = nil
    ) throws(SoftAuthenticatorError) -> AuthenticationResponseJSON {
        let rpId = try OriginCheck.rpId(options.rpId, origin: origin)
        guard let challenge = Base64URL.decode(options.challenge), !challenge.isEmpty else {
            throw .invalidOptions("challenge is not base64url")
        }
        if options.userVerification == "required", !userVerified { throw .userVerificationUnavailable }

        var state = try store.load()
        let allowed = (options.allowCredentials ?? []).compactMap { Base64URL.decode($0.id) }
        let prfInputs = options.extensions?.prf
        let byCredential = try Self.prfInputsByCredential(prfInputs, allowed: allowed)
        let candidates = state.passkeys.filter { passkey in
            guard passkey.rpId == rpId else { return false }
            if allowed.isEmpty { return passkey.discoverable }
            return allowed.contains(Base64URL.decode(passkey.credentialId) ?? [])
        }
        guard !candidates.isEmpty else { throw .noCredentials(rpId: rpId) }
        let chosen: StoredPasskey?
        if let chooser, candidates.count > 1 {
            chosen = chooser(candidates)
        } else {
            chosen = candidates.max { ($0.lastUsedAt ?? $0.createdAt) < ($1.lastUsedAt ?? $1.createdAt) }
        }
        guard let chosen, let index = state.passkeys.firstIndex(where: { $0.credentialId == chosen.credentialId && $0.rpId == rpId }) else {
            throw .cancelled
        }
        var passkey = state.passkeys[index]
        let key = try CredentialKey(stored: passkey)
        if !passkey.backedUp { passkey.signCount &+= 1 }
        let verified = userVerified && options.userVerification != "discouraged"
        let authData = header(rpId: rpId, verified: verified, attested: false, signCount: passkey.signCount, backedUp: passkey.backedUp)
        let clientData = ClientData.json(type: "webauthn.get", challenge: challenge, origin: origin)
        let signature = try key.sign(authData + SHA256.hash(data: clientData))
        passkey.lastUsedAt = now()
        state.passkeys[index] = passkey
        // prf: this credential's own salts when evalByCredential names it, else eval's; a credential
        // without a secret answers an empty prf output, as a client does for an authenticator without it.
        var prf: ClientExtensionResultsJSON.PRFOutputs?
        if prfInputs != nil {
            let values = Base64URL.decode(passkey.credentialId).flatMap { id in byCredential.first { $0.id == id }?.values } ?? prfInputs?.eval
            if let values, let secret = passkey.prfSecret.flatMap(Base64URL.decode) {
                prf = ClientExtensionResultsJSON.PRFOutputs(results: try PRFEvaluation.results(secret: secret, for: values))
            } else {
                prf = ClientExtensionResultsJSON.PRFOutputs()
            }
        }
        try store.save(state)

        return AuthenticationResponseJSON(
            id: passkey.credentialId, rawId: passkey.credentialId,
            response: AuthenticatorAssertionResponseJSON(
                clientDataJSON: Base64URL.encode(clientData), authenticatorData: Base64URL.encode(authData),
                signature: Base64URL.encode(signature), userHandle: passkey.userHandle),
            authenticatorAttachment: "platform", clientExtensionResults: ClientExtensionResultsJSON(prf: prf))
    }

    /// evalByCredential as a client checks it (L3 §10.1.4): only beside allowCredentials, and every key a
    /// base64url credential id among them; the entries by decoded id.
    private static func prfInputsByCredential(
        _ inputs: PRFInputsJSON?, allowed: [[UInt8]]
    ) throws(SoftAuthenticatorError) -> [(id: [UInt8], values: PRFValuesJSON)] {
        guard let byCredential = inputs?.evalByCredential, !byCredential.isEmpty else { return [] }
        guard !allowed.isEmpty else { throw .invalidOptions("prf evalByCredential needs allowCredentials") }
        var entries: [(id: [UInt8], values: PRFValuesJSON)] = []
        for (key, values) in byCredential {
            guard let id = Base64URL.decode(key), !id.isEmpty, allowed.contains(id) else {
                throw .invalidOptions("prf evalByCredential names \"\(key)\", which is not in allowCredentials")
            }
            entries.append((id, values))
        }
        return entries
    }

    // MARK: - Managing stored passkeys

    public func passkeys() throws(SoftAuthenticatorError) -> [StoredPasskey] {
        try store.load().passkeys
    }

    /// Removes a passkey by credential id (base64url); returns whether one was removed.
    @discardableResult
    public func remove(credentialId: String) throws(SoftAuthenticatorError) -> Bool {
        var state = try store.load()
        let before = state.passkeys.count
        state.passkeys.removeAll { $0.credentialId == credentialId }
        guard state.passkeys.count != before else { return false }
        try store.save(state)
        return true
    }

    // MARK: - Authenticator data

    /// Whether the relying party asked for an attestation statement (anything else gets `none`).
    private func asksForAttestation(_ options: PublicKeyCredentialCreationOptionsJSON) -> Bool {
        options.attestation == "direct" || options.attestation == "enterprise"
    }

    /// rpIdHash ‖ flags ‖ signCount (§6.1). UP is always set: this authenticator only acts when asked.
    private func header(rpId: String, verified: Bool, attested: Bool, signCount: UInt32, backedUp: Bool? = nil) -> [UInt8] {
        var flags: UInt8 = 0x01
        if verified { flags |= 0x04 }
        if backedUp ?? (backupStyle == .synced) {
            flags |= 0x08
            if !syncPaused { flags |= 0x10 }
        }
        if attested { flags |= 0x40 }
        var bytes = Array(SHA256.hash(data: Array(rpId.utf8)))
        bytes.append(flags)
        bytes += [UInt8(signCount >> 24), UInt8(signCount >> 16 & 0xff), UInt8(signCount >> 8 & 0xff), UInt8(signCount & 0xff)]
        return bytes
    }
}
