import WebAuthn

/// The rules of the PRF extension's values the server passes on (WebAuthn L3 §10.1.4): a client's inputs
/// for its login options, and the outputs a client reports after signing in, which go back to it with the
/// session. Each broken rule is a 422 `invalid_prf` whose sentence names the member; a value that breaks
/// none comes back in canonical base64url (no padding), the form the server sends.
extension InputRules {
    /// An input (salt) is hashed by the client before the authenticator sees it, so a longer one adds
    /// nothing; 32 random bytes is the usual choice.
    package static let prfInputBytes = 1...64
    /// HMAC-SHA256's size: what every PRF output is.
    package static let prfOutputBytes = 32
    /// Credentials one login's `evalByCredential` may name: a person's own handful, with room.
    package static let prfCredentials = 32
    /// A credential id is at most 1023 bytes (L3 §5.8.3).
    private static let credentialIdBytes = 1...1023

    /// A client's inputs for `POST /api/login/options`, checked, keys and salts canonical.
    package static func prfInputs(_ inputs: PRFInputsJSON, field: String = "prf") throws(APIError) -> PRFInputsJSON {
        var checked = PRFInputsJSON()
        if let eval = inputs.eval { checked.eval = try prfValues(eval, field: field + ".eval", sizes: prfInputBytes, what: "1 to 64 bytes") }
        if let byCredential = inputs.evalByCredential {
            guard byCredential.count <= prfCredentials else {
                throw APIError(.invalidPRF, "\(field).evalByCredential may name at most \(prfCredentials) credentials, not \(byCredential.count).")
            }
            var entries: [Base64URLString: PRFValuesJSON] = [:]
            for (key, values) in byCredential {
                guard let id = Base64URL.decode(key), credentialIdBytes.contains(id.count) else {
                    throw APIError(.invalidPRF, "\(field).evalByCredential has a key that is not a credential id (1 to 1023 bytes as base64url).")
                }
                let canonical = Base64URL.encode(id)
                guard entries[canonical] == nil else {
                    throw APIError(.invalidPRF, "\(field).evalByCredential names the credential \(canonical) twice.")
                }
                entries[canonical] = try prfValues(values, field: "\(field).evalByCredential.\(canonical)", sizes: prfInputBytes, what: "1 to 64 bytes")
            }
            checked.evalByCredential = entries.isEmpty ? nil : entries
        }
        guard checked.eval != nil || checked.evalByCredential != nil else {
            throw APIError(.invalidPRF, "\(field) needs eval, evalByCredential or both.")
        }
        return checked
    }

    /// The outputs a client reports (`clientExtensionResults.prf.results`): 32 bytes each.
    package static func prfResults(_ results: PRFValuesJSON, field: String = "credential.clientExtensionResults.prf.results") throws(APIError) -> PRFValuesJSON {
        try prfValues(results, field: field, sizes: prfOutputBytes...prfOutputBytes, what: "32 bytes")
    }

    private static func prfValues(_ values: PRFValuesJSON, field: String, sizes: ClosedRange<Int>, what: String) throws(APIError) -> PRFValuesJSON {
        func value(_ text: String, _ member: String) throws(APIError) -> String {
            guard let bytes = Base64URL.decode(text), sizes.contains(bytes.count) else {
                throw APIError(.invalidPRF, "\(field).\(member) must be \(what) as base64url.")
            }
            return Base64URL.encode(bytes)
        }
        return PRFValuesJSON(first: try value(values.first, "first"), second: try values.second.map { text throws(APIError) in try value(text, "second") })
    }
}
