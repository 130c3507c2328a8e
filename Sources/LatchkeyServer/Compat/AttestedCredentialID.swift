import CBOR
import WebAuthn

/// The credential id inside an attestation object (`authData`'s attested credential data).
///
/// Neither compatibility client always sends it beside the object: PassKeysDemo's create body is only
/// `{clientDataJSON, attestationObject}`, and Hanko's iOS app sends `"id": ""`. The verifier stores the id
/// it reads from the attestation object anyway (§7.1), so taking the JSON's `id`/`rawId` from there
/// asserts nothing the object does not. Nil when the object does not parse that far (the caller answers 400).
enum AttestedCredentialID {
    static func from(attestationObject bytes: [UInt8]) -> [UInt8]? {
        guard case .map(let map)? = try? CBORDecoder().decode(bytes),
              let authData = map[text: "authData"]?.bytesValue,
              let parsed = try? AuthenticatorData(bytes: authData),
              let id = parsed.attestedCredentialData?.credentialId, !id.isEmpty
        else { return nil }
        return id
    }
}
