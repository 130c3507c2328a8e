import WebAuthn

// WebAuthn's JSON types, written by `JSONWriter` (the options a login and a registration send).

// MARK: The bodies a login sends (and a registration: its session)

extension PublicKeyCredentialRequestOptionsJSON: JSONWritable {
    package func write(to json: inout JSONWriter) {
        json.object { json in
            if let allowCredentials { json.member("allowCredentials") { $0.array(allowCredentials) { $1.write(to: &$0) } } }
            json.member("challenge", challenge)
            if let extensions { json.member("extensions", extensions) }
            if let hints { json.member("hints") { $0.array(hints) { $0.string($1) } } }
            if let rpId { json.member("rpId", rpId) }
            if let timeout { json.member("timeout", timeout) }
            if let userVerification { json.member("userVerification", userVerification) }
        }
    }
}

// MARK: The options a registration sends

extension PublicKeyCredentialCreationOptionsJSON: JSONWritable {
    package func write(to json: inout JSONWriter) {
        json.object { json in
            if let attestation { json.member("attestation", attestation) }
            if let attestationFormats { json.member("attestationFormats") { $0.array(attestationFormats) { $0.string($1) } } }
            if let authenticatorSelection { json.member("authenticatorSelection", authenticatorSelection) }
            json.member("challenge", challenge)
            if let excludeCredentials { json.member("excludeCredentials") { $0.array(excludeCredentials) { $1.write(to: &$0) } } }
            if let extensions { json.member("extensions", extensions) }
            if let hints { json.member("hints") { $0.array(hints) { $0.string($1) } } }
            json.member("pubKeyCredParams") { $0.array(pubKeyCredParams) { $1.write(to: &$0) } }
            json.member("rp", rp)
            if let timeout { json.member("timeout", timeout) }
            json.member("user", user)
        }
    }
}

extension RelyingPartyEntityJSON: JSONWritable {
    package func write(to json: inout JSONWriter) {
        json.object { json in
            if let id { json.member("id", id) }
            json.member("name", name)
        }
    }
}

extension UserEntityJSON: JSONWritable {
    package func write(to json: inout JSONWriter) {
        json.object { json in
            json.member("displayName", displayName)
            json.member("id", id)
            json.member("name", name)
        }
    }
}

extension CredentialParametersJSON: JSONWritable {
    package func write(to json: inout JSONWriter) {
        json.object { json in
            json.member("alg", alg)
            json.member("type", type)
        }
    }
}

extension AuthenticatorSelectionJSON: JSONWritable {
    package func write(to json: inout JSONWriter) {
        json.object { json in
            if let authenticatorAttachment { json.member("authenticatorAttachment", authenticatorAttachment) }
            if let requireResidentKey { json.member("requireResidentKey", requireResidentKey) }
            if let residentKey { json.member("residentKey", residentKey) }
            if let userVerification { json.member("userVerification", userVerification) }
        }
    }
}

extension CredentialDescriptorJSON: JSONWritable {
    package func write(to json: inout JSONWriter) {
        json.object { json in
            json.member("id", id)
            if let transports { json.member("transports") { $0.array(transports) { $0.string($1) } } }
            json.member("type", type)
        }
    }
}

extension ExtensionInputsJSON: JSONWritable {
    package func write(to json: inout JSONWriter) {
        json.object { json in
            if let credProps { json.member("credProps", credProps) }
            if let prf { json.member("prf", prf) }
        }
    }
}

extension PRFInputsJSON: JSONWritable {
    package func write(to json: inout JSONWriter) {
        json.object { json in
            if let eval { json.member("eval", eval) }
            if let evalByCredential {
                json.member("evalByCredential") { json in
                    json.object { json in
                        for key in evalByCredential.keys.sorted() {
                            if let values = evalByCredential[key] { json.member(key, values) }
                        }
                    }
                }
            }
        }
    }
}

extension PRFValuesJSON: JSONWritable {
    package func write(to json: inout JSONWriter) {
        json.object { json in
            json.member("first", first)
            if let second { json.member("second", second) }
        }
    }
}
