import Crypto
import Foundation

/// WebAuthn L3 §7.1 "Registering a New Credential", from step 3 on (steps 1–2 are the client's).
///
/// Step 27 (credential id not yet registered) needs the server's database and is the caller's.
public struct RegistrationVerifier: Sendable {
    public let relyingParty: RelyingParty

    public init(relyingParty: RelyingParty) {
        self.relyingParty = relyingParty
    }

    /// Verifies `credential` against the challenge that was issued for it.
    /// - Parameters:
    ///   - credential: the `RegistrationResponseJSON` the client sent.
    ///   - expectedChallenge: the challenge issued for this ceremony (the bytes, not base64url).
    ///   - allowedAlgorithms: the `pubKeyCredParams` that were offered; default: the RP's.
    ///   - requireUserPresence: false only for conditional-mediation creates (§7.1 step 15).
    ///   - verificationTime: "now" for certificate validity (injectable for tests and old captures).
    public func verify(
        _ credential: RegistrationResponseJSON, expectedChallenge: [UInt8], allowedAlgorithms: [COSEAlgorithm]? = nil,
        requireUserPresence: Bool = true, verificationTime: Date = Date()
    ) async throws(WebAuthnError) -> RegistrationResult {
        do {
            return try await steps(
                credential, challenge: expectedChallenge, algorithms: allowedAlgorithms ?? relyingParty.allowedAlgorithms,
                requireUserPresence: requireUserPresence, time: verificationTime)
        } catch {
            throw WebAuthnError(error.rule, in: .registration)
        }
    }

    private func steps(
        _ credential: RegistrationResponseJSON, challenge: [UInt8], algorithms: [COSEAlgorithm],
        requireUserPresence: Bool, time: Date
    ) async throws(WebAuthnError) -> RegistrationResult {
        let rp = relyingParty
        // Step 3: the response is an attestation response (its members decode).
        _ = try CeremonyChecks.credentialIdentity(id: credential.id, rawId: credential.rawId, type: credential.type)
        let clientDataBytes = try CeremonyChecks.decode(credential.response.clientDataJSON, member: "response.clientDataJSON")
        let attestationBytes = try CeremonyChecks.decode(credential.response.attestationObject, member: "response.attestationObject")
        // Step 4: clientExtensionResults are read below (credProps).
        // Steps 5–6: UTF-8 decode and parse clientDataJSON.
        let clientData = try CollectedClientData(bytes: clientDataBytes)
        // Steps 7–11: type, challenge, origin, crossOrigin, topOrigin.
        try CeremonyChecks.clientData(clientData, expectedType: "webauthn.create", challenge: challenge, relyingParty: rp)
        // Step 12: hash over the exact clientDataJSON bytes.
        let clientDataHash = Array(SHA256.hash(data: clientDataBytes))
        // Step 13: CBOR-decode the attestation object into fmt, authData and attStmt.
        let attestation = try AttestationObject(bytes: attestationBytes)
        let authData = attestation.authenticatorData
        guard let attested = authData.attestedCredentialData else { throw WebAuthnError(.attestedCredentialDataMissing) }
        // Step 14: rpIdHash.
        try CeremonyChecks.rpIdHash(authData, relyingParty: rp)
        // Steps 15–17: UP, UV, BE/BS.
        try CeremonyChecks.flags(authData, requireUserPresence: requireUserPresence, relyingParty: rp)
        // Steps 18–19: BE and BS are reported to the caller's policy in the result.
        // Step 20: the credential key's alg is one of pubKeyCredParams.
        guard algorithms.contains(attested.publicKey.algorithm) else {
            throw WebAuthnError(.algorithmNotAllowed(attested.publicKey.algorithm.rawValue))
        }
        // Step 21: the extensions requested are credProps and prf, whose outputs are informational (what
        // the client says about the new credential), reported in the result.
        // Step 22: the attestation statement format, by exact identifier.
        let format = try AttestationFormats.format(named: attestation.format)
        // Step 23: the format's verification procedure.
        let outcome = try format.verify(AttestationInput(
            rawStatement: attestation.statement, authenticatorData: authData, credential: attested,
            clientDataHash: clientDataHash, relyingParty: rp, verificationTime: time))
        // Steps 24–25: trust anchors and the trustworthiness of the trust path.
        let assessment = try await AttestationTrust.assess(
            outcome, format: attestation.format, aaguid: attested.aaguid, anchors: rp.trustAnchors, time: time)
        // Step 26: credential id length (also enforced while parsing authData).
        guard attested.credentialId.count <= AuthenticatorData.maxCredentialIdLength else {
            throw WebAuthnError(.credentialIdTooLong(length: attested.credentialId.count))
        }
        // The credential id stored is the one in authenticator data (covered by the attestation), not the
        // client's `rawId`: §7.1 does not require them to agree, and a real Apple capture among the shared
        // vectors reports a rawId whose bytes differ, so a difference is not a failure.
        // Step 29: an untrusted attestation fails when the RP requires trusted attestation.
        if rp.requireTrustedAttestation, assessment != .verified {
            throw WebAuthnError(.attestationTypeNotAllowed(format: attestation.format, type: outcome.type.rawValue))
        }
        // Step 28: the credential record.
        return RegistrationResult(
            credentialId: attested.credentialId, publicKey: attested.publicKeyBytes,
            publicKeyAlgorithm: attested.publicKey.algorithm, signCount: authData.signCount, aaguid: attested.aaguid,
            userPresent: authData.userPresent, userVerified: authData.userVerified,
            backupEligible: authData.backupEligible, backupState: authData.backupState,
            transports: credential.response.transports ?? [], authenticatorAttachment: credential.authenticatorAttachment,
            attestationFormat: attestation.format, attestationType: outcome.type,
            trustPathVerified: assessment == .verified,
            attestationTrustPath: outcome.trustPath.map(DEREncoding.bytes(of:)),
            residentKey: credential.clientExtensionResults.credProps?.rk,
            prfEnabled: credential.clientExtensionResults.prf?.enabled)
    }
}
