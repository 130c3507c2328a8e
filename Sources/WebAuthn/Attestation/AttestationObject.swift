import CBOR

/// The attestation object (WebAuthn L3 §6.5.4): `{fmt, attStmt, authData}` in CBOR, decoded strictly
/// (§7.1 step 13). Other members are ignored, as CTAP2 allows more in the authenticator's response.
struct AttestationObject {
    let format: String
    /// A map for every format but `compound`, whose statement is an array.
    let statement: CBORValue
    let authenticatorData: AuthenticatorData

    init(bytes: [UInt8]) throws(WebAuthnError) {
        func malformed(_ reason: String) -> WebAuthnError { WebAuthnError(.attestationObjectMalformed(reason)) }
        let value: CBORValue
        do {
            value = try CBORDecoder().decode(bytes)
        } catch {
            throw malformed("\(error)")
        }
        guard case .map(let map) = value else { throw malformed("not a CBOR map") }
        guard let format = map[text: "fmt"]?.textValue else { throw malformed("fmt is missing or not a text string") }
        guard let statement = map[text: "attStmt"] else { throw malformed("attStmt is missing") }
        switch statement {
        case .map: break
        case .array where format == CompoundAttestation.identifier: break
        default: throw malformed("attStmt is not a map")
        }
        guard let authData = map[text: "authData"]?.bytesValue else {
            throw malformed("authData is missing or not a byte string")
        }
        self.format = format
        self.statement = statement
        self.authenticatorData = try AuthenticatorData(bytes: authData)
    }
}
