import Crypto

/// WebAuthn L3 §7.2 "Verifying an Authentication Assertion", from step 3 on.
///
/// The caller looks the credential record up by the credential id (step 6's "credential record") and
/// passes it in; this verifier checks that it is the right one and that the assertion is valid for it.
public struct AuthenticationVerifier: Sendable {
    public let relyingParty: RelyingParty

    public init(relyingParty: RelyingParty) {
        self.relyingParty = relyingParty
    }

    /// Verifies `credential` (an assertion) against the challenge that was issued for it and the stored
    /// credential its id names.
    /// - Parameters:
    ///   - credential: the `AuthenticationResponseJSON` the client sent.
    ///   - expectedChallenge: the challenge issued for this ceremony (the bytes, not base64url).
    ///   - storedCredential: the credential record looked up by the response's credential id.
    ///   - allowCredentials: the credential ids offered in `allowCredentials`; empty for discoverable login.
    public func verify(
        _ credential: AuthenticationResponseJSON, expectedChallenge: [UInt8], storedCredential: StoredCredential,
        allowCredentials: [[UInt8]] = []
    ) throws(WebAuthnError) -> AuthenticationResult {
        do {
            return try steps(credential, challenge: expectedChallenge, record: storedCredential, allowed: allowCredentials)
        } catch {
            throw WebAuthnError(error.rule, in: .authentication)
        }
    }

    private func steps(
        _ credential: AuthenticationResponseJSON, challenge: [UInt8], record: StoredCredential, allowed: [[UInt8]]
    ) throws(WebAuthnError) -> AuthenticationResult {
        let rp = relyingParty
        // Step 3: the response is an assertion response (its members decode).
        let credentialId = try CeremonyChecks.credentialIdentity(id: credential.id, rawId: credential.rawId, type: credential.type)
        let response = credential.response
        // Step 5: with a non-empty allowCredentials, the credential is one of them.
        if !allowed.isEmpty, !allowed.contains(credentialId) { throw WebAuthnError(.credentialNotAllowed) }
        // Step 6: the credential record is this credential's, and userHandle (when sent) is its user's.
        guard credentialId == record.id else { throw WebAuthnError(.credentialRecordMismatch) }
        var userHandle: [UInt8]?
        if let handle = response.userHandle, !handle.isEmpty {
            let bytes = try CeremonyChecks.decode(handle, member: "response.userHandle")
            if let expected = record.userHandle, !ConstantTime.equal(bytes, expected) {
                throw WebAuthnError(.userHandleMismatch)
            }
            userHandle = bytes
        } else if allowed.isEmpty, record.userHandle != nil {
            // Discoverable login: the user is identified only by the userHandle, so it must be present.
            throw WebAuthnError(.userHandleMismatch)
        }
        // Step 7: cData, authData, sig.
        let clientDataBytes = try CeremonyChecks.decode(response.clientDataJSON, member: "response.clientDataJSON")
        let authDataBytes = try CeremonyChecks.decode(response.authenticatorData, member: "response.authenticatorData")
        let signature = try CeremonyChecks.decode(response.signature, member: "response.signature")
        let authData = try AuthenticatorData(bytes: authDataBytes)
        // Steps 8–9: UTF-8 decode and parse the client data.
        let clientData = try CollectedClientData(bytes: clientDataBytes)
        // Steps 10–14: type, challenge, origin, crossOrigin, topOrigin.
        try CeremonyChecks.clientData(clientData, expectedType: "webauthn.get", challenge: challenge, relyingParty: rp)
        // Step 15: rpIdHash.
        try CeremonyChecks.rpIdHash(authData, relyingParty: rp)
        // Steps 16–18: UP, UV, BE/BS.
        try CeremonyChecks.flags(authData, requireUserPresence: true, relyingParty: rp)
        // Step 19: backup eligibility cannot change over a credential's life.
        if let storedBE = record.backupEligible, storedBE != authData.backupEligible {
            throw WebAuthnError(.backupEligibilityChanged(stored: storedBE, received: authData.backupEligible))
        }
        // Step 20: no extensions are requested, so none are checked.
        // Step 21: hash over the exact clientDataJSON bytes.
        let clientDataHash = SHA256.hash(data: clientDataBytes)
        // Step 22: the signature over authData ‖ hash, with the stored public key.
        var signedData = authDataBytes
        signedData.append(contentsOf: clientDataHash)
        guard try record.publicKey.isValidSignature(signature, for: signedData) else {
            throw WebAuthnError(.signatureInvalid)
        }
        // Step 23: the signature counter. One exception before the rule (§6.1.1 allows a relying party its
        // own response to a counter that does not grow): a synced passkey (BE=1) that has counted and now
        // reports 0 was moved to a provider that does not count (passkeys move between password managers,
        // the FIDO Credential Exchange formats); a clone would have to report exactly 0 too, and a synced
        // passkey is by design on several devices. The counter is reset to 0 and the caller told
        // (`counterReset`); a device-bound passkey (BE=0) that goes back is still a possible clone.
        var possibleClone = false
        if authData.backupEligible, authData.signCount == 0, record.signCount > 0 {
            return AuthenticationResult(
                credentialId: credentialId, signCount: 0, userVerified: authData.userVerified, backupEligible: true,
                backupState: authData.backupState, possibleClone: false, userHandle: userHandle,
                authenticatorAttachment: credential.authenticatorAttachment, counterReset: true)
        }
        if authData.signCount != 0 || record.signCount != 0, authData.signCount <= record.signCount {
            guard rp.signCountPolicy == .report else {
                throw WebAuthnError(.signCountRegression(stored: record.signCount, received: authData.signCount))
            }
            possibleClone = true
        }
        // Step 25: what the caller updates in the record.
        return AuthenticationResult(
            credentialId: credentialId, signCount: max(authData.signCount, record.signCount),
            userVerified: authData.userVerified, backupEligible: authData.backupEligible,
            backupState: authData.backupState, possibleClone: possibleClone, userHandle: userHandle,
            authenticatorAttachment: credential.authenticatorAttachment)
    }
}
