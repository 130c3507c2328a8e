/// Which ceremony a failure happened in; the same rule has a different step number in §7.1 and §7.2.
public enum Ceremony: String, Sendable {
    case registration
    case authentication
}

/// A failed verification: the rule that was broken, with its context, and the ceremony it was broken in.
///
/// `code` is a stable snake_case identifier for programs (the HTTP API and `latchkey verify` put it in
/// `{"error": {"code", "message"}}`); `message` is one sentence for people that names the spec step.
public struct WebAuthnError: Error, Sendable, Equatable, CustomStringConvertible {
    public let rule: Rule
    public let ceremony: Ceremony?

    public init(_ rule: Rule, in ceremony: Ceremony? = nil) {
        self.rule = rule
        self.ceremony = ceremony
    }

    public enum Rule: Sendable, Equatable {
        // Shape of the credential JSON and its binary members.
        case malformedCredential(field: String, reason: String)
        case credentialTypeInvalid(String)
        case credentialIdMismatch
        // Client data (§7.1 steps 5–11, §7.2 steps 8–14).
        case clientDataMalformed(String)
        case clientDataTypeMismatch(expected: String, received: String)
        case challengeMismatch
        case originNotAllowed(String)
        case crossOriginNotAllowed
        case topOriginNotAllowed(String)
        case tokenBindingInvalid(String)
        // Attestation object and authenticator data.
        case attestationObjectMalformed(String)
        case authenticatorDataMalformed(String)
        case rpIdHashMismatch
        case userNotPresent
        case userNotVerified
        case backupStateWithoutEligibility
        case backupEligibilityChanged(stored: Bool, received: Bool)
        case attestedCredentialDataMissing
        case credentialIdTooLong(length: Int)
        // Keys and signatures.
        case algorithmNotAllowed(Int)
        case unsupportedAlgorithm(Int)
        case publicKeyInvalid(String)
        case signatureInvalid
        // Attestation statements (§8).
        case unsupportedAttestationFormat(String)
        case attestationStatementMalformed(format: String, reason: String)
        case attestationSignatureInvalid(format: String)
        case attestationCertificateInvalid(format: String, rule: String)
        case attestationAAGUIDMismatch(format: String)
        case attestationChainInvalid(format: String, reason: String)
        case attestationTypeNotAllowed(format: String, type: String)
        // Authentication against a stored credential record (§7.2 steps 5, 6, 23).
        case credentialNotAllowed
        case credentialRecordMismatch
        case userHandleMismatch
        case signCountRegression(stored: UInt32, received: UInt32)
    }

    public var code: String {
        switch rule {
        case .malformedCredential: "malformed_credential"
        case .credentialTypeInvalid: "credential_type_invalid"
        case .credentialIdMismatch: "credential_id_mismatch"
        case .clientDataMalformed: "client_data_malformed"
        case .clientDataTypeMismatch: "client_data_type_mismatch"
        case .challengeMismatch: "challenge_mismatch"
        case .originNotAllowed: "origin_not_allowed"
        case .crossOriginNotAllowed: "cross_origin_not_allowed"
        case .topOriginNotAllowed: "top_origin_not_allowed"
        case .tokenBindingInvalid: "token_binding_invalid"
        case .attestationObjectMalformed: "attestation_object_malformed"
        case .authenticatorDataMalformed: "authenticator_data_malformed"
        case .rpIdHashMismatch: "rp_id_hash_mismatch"
        case .userNotPresent: "user_not_present"
        case .userNotVerified: "user_not_verified"
        case .backupStateWithoutEligibility: "backup_state_without_eligibility"
        case .backupEligibilityChanged: "backup_eligibility_changed"
        case .attestedCredentialDataMissing: "attested_credential_data_missing"
        case .credentialIdTooLong: "credential_id_too_long"
        case .algorithmNotAllowed: "algorithm_not_allowed"
        case .unsupportedAlgorithm: "unsupported_algorithm"
        case .publicKeyInvalid: "public_key_invalid"
        case .signatureInvalid: "signature_invalid"
        case .unsupportedAttestationFormat: "unsupported_attestation_format"
        case .attestationStatementMalformed: "attestation_statement_malformed"
        case .attestationSignatureInvalid: "attestation_signature_invalid"
        case .attestationCertificateInvalid: "attestation_certificate_invalid"
        case .attestationAAGUIDMismatch: "attestation_aaguid_mismatch"
        case .attestationChainInvalid: "attestation_chain_invalid"
        case .attestationTypeNotAllowed: "attestation_type_not_allowed"
        case .credentialNotAllowed: "credential_not_allowed"
        case .credentialRecordMismatch: "credential_record_mismatch"
        case .userHandleMismatch: "user_handle_mismatch"
        case .signCountRegression: "sign_count_regression"
        }
    }

    /// The step of WebAuthn Level 3 §7.1 (registration) or §7.2 (authentication) that failed; 0 in the
    /// table means the rule has no step in that ceremony.
    public var step: String? {
        guard let ceremony else { return nil }
        let numbers: (registration: Int, authentication: Int)
        switch rule {
        case .malformedCredential, .credentialTypeInvalid, .credentialIdMismatch: numbers = (3, 3)
        case .clientDataMalformed: numbers = (6, 9)
        case .clientDataTypeMismatch: numbers = (7, 10)
        case .challengeMismatch: numbers = (8, 11)
        case .originNotAllowed: numbers = (9, 12)
        case .crossOriginNotAllowed: numbers = (10, 13)
        case .topOriginNotAllowed: numbers = (11, 14)
        case .tokenBindingInvalid: numbers = (9, 12)
        case .attestationObjectMalformed, .authenticatorDataMalformed, .attestedCredentialDataMissing: numbers = (13, 7)
        case .rpIdHashMismatch: numbers = (14, 15)
        case .userNotPresent: numbers = (15, 16)
        case .userNotVerified: numbers = (16, 17)
        case .backupStateWithoutEligibility: numbers = (17, 18)
        case .backupEligibilityChanged: numbers = (18, 19)
        case .algorithmNotAllowed: numbers = (20, 22)
        case .unsupportedAttestationFormat: numbers = (22, 24)
        case .attestationStatementMalformed, .attestationSignatureInvalid, .attestationCertificateInvalid,
             .attestationAAGUIDMismatch, .unsupportedAlgorithm, .publicKeyInvalid:
            numbers = (23, 22)
        case .attestationChainInvalid, .attestationTypeNotAllowed: numbers = (25, 24)
        case .credentialIdTooLong: numbers = (26, 6)
        case .signatureInvalid: numbers = (23, 22)
        case .credentialNotAllowed: numbers = (0, 5)
        case .credentialRecordMismatch, .userHandleMismatch: numbers = (0, 6)
        case .signCountRegression: numbers = (0, 23)
        }
        let (section, number) = ceremony == .registration ? ("7.1", numbers.registration) : ("7.2", numbers.authentication)
        return number == 0 ? nil : "§\(section) step \(number)"
    }

    public var message: String {
        let text: String
        switch rule {
        case .malformedCredential(let field, let reason): text = "credential member \(field) is malformed: \(reason)"
        case .credentialTypeInvalid(let t): text = "credential type is \"\(t)\", expected \"public-key\""
        case .credentialIdMismatch: text = "credential id and rawId differ"
        case .clientDataMalformed(let reason): text = "clientDataJSON is malformed: \(reason)"
        case .clientDataTypeMismatch(let expected, let received):
            text = "clientDataJSON type is \"\(received)\", expected \"\(expected)\""
        case .challengeMismatch: text = "clientDataJSON challenge does not match the challenge that was issued"
        case .originNotAllowed(let origin): text = "origin \"\(origin)\" is not an allowed origin"
        case .crossOriginNotAllowed: text = "clientDataJSON crossOrigin is true but cross-origin ceremonies are not allowed"
        case .topOriginNotAllowed(let origin): text = "topOrigin \"\(origin)\" is not an allowed top origin"
        case .tokenBindingInvalid(let status): text = "clientDataJSON tokenBinding status \"\(status)\" is not valid"
        case .attestationObjectMalformed(let reason): text = "attestationObject is malformed: \(reason)"
        case .authenticatorDataMalformed(let reason): text = "authenticatorData is malformed: \(reason)"
        case .rpIdHashMismatch: text = "rpIdHash in authenticatorData is not the SHA-256 of the RP ID"
        case .userNotPresent: text = "user present (UP) flag is not set"
        case .userNotVerified: text = "user verification is required but the UV flag is not set"
        case .backupStateWithoutEligibility: text = "backup state (BS) is set without backup eligibility (BE)"
        case .backupEligibilityChanged(let stored, let received):
            text = "backup eligibility changed from \(stored) to \(received)"
        case .attestedCredentialDataMissing: text = "authenticatorData has no attested credential data"
        case .credentialIdTooLong(let length): text = "credential id is \(length) bytes, more than 1023"
        case .algorithmNotAllowed(let alg): text = "credential algorithm \(alg) is not one the relying party allows"
        case .unsupportedAlgorithm(let alg): text = "COSE algorithm \(alg) is not supported"
        case .publicKeyInvalid(let reason): text = "credential public key is invalid: \(reason)"
        case .signatureInvalid: text = "assertion signature does not verify with the credential public key"
        case .unsupportedAttestationFormat(let fmt): text = "attestation statement format \"\(fmt)\" is not supported"
        case .attestationStatementMalformed(let format, let reason):
            text = "\(format) attestation statement is malformed: \(reason)"
        case .attestationSignatureInvalid(let format): text = "\(format) attestation signature does not verify"
        case .attestationCertificateInvalid(let format, let rule):
            text = "\(format) attestation certificate breaks a requirement: \(rule)"
        case .attestationAAGUIDMismatch(let format):
            text = "\(format) attestation certificate AAGUID extension (1.3.6.1.4.1.45724.1.1.4) does not match the authenticator data AAGUID"
        case .attestationChainInvalid(let format, let reason):
            text = "\(format) attestation certificate chain is not trusted: \(reason)"
        case .attestationTypeNotAllowed(let format, let type):
            text = "\(format) attestation of type \(type) is not accepted by the relying party's policy"
        case .credentialNotAllowed: text = "credential is not one of allowCredentials"
        case .credentialRecordMismatch: text = "credential id does not match the stored credential record"
        case .userHandleMismatch: text = "userHandle does not match the credential's user"
        case .signCountRegression(let stored, let received):
            text = "sign count \(received) is not greater than the stored \(stored): possible cloned authenticator"
        }
        if let step { return "\(step): \(text)" }
        return text
    }

    public var description: String { "\(code): \(message)" }
}
