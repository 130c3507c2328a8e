import WebAuthn

/// The JSON `latchkey verify` prints for a verified ceremony.
enum VerifyResultJSON {
    static func object(for outcome: CeremonyDocument.Outcome) -> [String: Any] {
        switch outcome {
        case .registration(let r):
            var object: [String: Any] = [
                "ceremony": "registration",
                "credentialId": Base64URL.encode(r.credentialId),
                "publicKey": Base64URL.encode(r.publicKey),
                "publicKeyAlgorithm": r.publicKeyAlgorithm.rawValue,
                "signCount": r.signCount,
                "aaguid": r.aaguidString,
                "attestationFormat": r.attestationFormat,
                "attestationType": r.attestationType.rawValue,
                "trustPathVerified": r.trustPathVerified,
                "userPresent": r.userPresent,
                "userVerified": r.userVerified,
                "backupEligible": r.backupEligible,
                "backupState": r.backupState,
                "transports": r.transports,
            ]
            if let rk = r.residentKey { object["residentKey"] = rk }
            if let prf = r.prfEnabled { object["prfEnabled"] = prf }
            return object
        case .authentication(let a):
            var object: [String: Any] = [
                "ceremony": "authentication",
                "credentialId": Base64URL.encode(a.credentialId),
                "signCount": a.signCount,
                "userVerified": a.userVerified,
                "backupEligible": a.backupEligible,
                "backupState": a.backupState,
                "possibleClone": a.possibleClone,
            ]
            if let handle = a.userHandle { object["userHandle"] = Base64URL.encode(handle) }
            return object
        }
    }
}
