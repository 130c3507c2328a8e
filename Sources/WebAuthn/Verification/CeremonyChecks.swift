import Crypto

/// The checks §7.1 and §7.2 share, each a small named function with the step numbers it performs.
/// They throw errors without a ceremony; the verifiers attach it.
enum CeremonyChecks {
    static func decode(_ string: String, member: String) throws(WebAuthnError) -> [UInt8] {
        guard let bytes = Base64URL.decode(string) else {
            throw WebAuthnError(.malformedCredential(field: member, reason: "not base64url"))
        }
        return bytes
    }

    /// The credential's `type` and that `id` and `rawId` name the same bytes.
    static func credentialIdentity(id: String, rawId: String, type: String) throws(WebAuthnError) -> [UInt8] {
        guard type == "public-key" else { throw WebAuthnError(.credentialTypeInvalid(type)) }
        let raw = try decode(rawId, member: "rawId")
        let idBytes = try decode(id, member: "id")
        guard idBytes == raw else { throw WebAuthnError(.credentialIdMismatch) }
        return raw
    }

    /// §7.1 steps 7–11 / §7.2 steps 10–14.
    static func clientData(
        _ c: CollectedClientData, expectedType: String, challenge: [UInt8], relyingParty rp: RelyingParty
    ) throws(WebAuthnError) {
        // §7.1 step 7 / §7.2 step 10: C.type.
        guard c.type == expectedType else {
            throw WebAuthnError(.clientDataTypeMismatch(expected: expectedType, received: c.type))
        }
        // §7.1 step 8 / §7.2 step 11: C.challenge equals the base64url encoding of the issued challenge.
        guard let received = Base64URL.decode(c.challenge), ConstantTime.equal(received, challenge) else {
            throw WebAuthnError(.challengeMismatch)
        }
        // §7.1 step 9 / §7.2 step 12: C.origin is an expected origin (exact match).
        guard rp.acceptsOrigin(c.origin) else { throw WebAuthnError(.originNotAllowed(c.origin)) }
        // Level 2 §7.1 step 10 / §7.2 step 14: a tokenBinding member, if sent, has a defined status.
        if let binding = c.tokenBinding, binding.status != "present", binding.status != "supported" {
            throw WebAuthnError(.tokenBindingInvalid(binding.status))
        }
        // §7.1 step 10 / §7.2 step 13: crossOrigin true only when the RP expects to be framed.
        if c.crossOrigin == true, !rp.allowCrossOrigin { throw WebAuthnError(.crossOriginNotAllowed) }
        // §7.1 step 11 / §7.2 step 14: topOrigin is a page the RP expects to be framed in.
        if let top = c.topOrigin {
            guard rp.allowCrossOrigin else { throw WebAuthnError(.crossOriginNotAllowed) }
            guard rp.acceptsTopOrigin(top) else { throw WebAuthnError(.topOriginNotAllowed(top)) }
        }
    }

    /// §7.1 step 14 / §7.2 step 15.
    static func rpIdHash(_ authData: AuthenticatorData, relyingParty rp: RelyingParty) throws(WebAuthnError) {
        guard ConstantTime.equal(authData.rpIdHash, SHA256.hash(data: Array(rp.id.utf8))) else {
            throw WebAuthnError(.rpIdHashMismatch)
        }
    }

    /// §7.1 steps 15–17 / §7.2 steps 16–18.
    static func flags(_ authData: AuthenticatorData, requireUserPresence: Bool, relyingParty rp: RelyingParty) throws(WebAuthnError) {
        // §7.1 step 15 / §7.2 step 16: UP.
        if requireUserPresence, !authData.userPresent { throw WebAuthnError(.userNotPresent) }
        // §7.1 step 16 / §7.2 step 17: UV when the RP requires user verification.
        if rp.userVerification == .required, !authData.userVerified { throw WebAuthnError(.userNotVerified) }
        // §7.1 step 17 / §7.2 step 18: BS only with BE.
        if authData.backupState, !authData.backupEligible { throw WebAuthnError(.backupStateWithoutEligibility) }
    }
}

extension ConstantTime {
    static func equal(_ a: [UInt8], _ digest: SHA256.Digest) -> Bool {
        digest.withUnsafeBytes { equal(a, $0) }
    }
}
