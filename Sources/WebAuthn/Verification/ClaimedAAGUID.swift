extension RegistrationResponseJSON {
    /// The AAGUID the attestation object names, read before anything is verified: what a relying party
    /// looks the authenticator model up by (its FIDO metadata, and so its attestation roots) before
    /// verifying. Nil when the attestation object does not decode; the verification then says why.
    /// Only a verified `RegistrationResult.aaguid` may be acted on.
    public var claimedAAGUID: [UInt8]? {
        guard let bytes = Base64URL.decode(response.attestationObject),
              let object = try? AttestationObject(bytes: bytes)
        else { return nil }
        return object.authenticatorData.attestedCredentialData?.aaguid
    }
}
